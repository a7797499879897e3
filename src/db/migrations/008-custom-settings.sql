-- Custom predefined settings written by administrators (POST/PUT/DELETE /info/predefined-settings/custom),
-- merged after the files' settings. Ids and names are unique whatever their case: a second
-- "INIST" beside "inist" would only confuse the selector. Who wrote a setting is the account's
-- address at the time (an account renamed or deleted later leaves the record as it was).
CREATE TABLE custom_settings (
  id TEXT NOT NULL PRIMARY KEY COLLATE NOCASE,
  full_name TEXT NOT NULL UNIQUE COLLATE NOCASE,
  country TEXT NOT NULL,
  headers TEXT NOT NULL CHECK (json_valid(headers) AND json_type(headers) = 'object'),
  created_by TEXT,
  created_at TEXT NOT NULL,
  updated_by TEXT,
  updated_at TEXT NOT NULL
);
