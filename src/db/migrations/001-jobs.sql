-- Jobs: one row per POST / (or PUT /{id}); the report is kept here as well as in the job folder.
CREATE TABLE jobs (
  id                TEXT PRIMARY KEY,
  state             TEXT NOT NULL CHECK (state IN ('running', 'done', 'failed', 'aborted', 'interrupted')),
  user_id           TEXT,
  created_at        TEXT NOT NULL,
  ended_at          TEXT,
  request_headers   TEXT NOT NULL,
  status_code       INTEGER,
  status_message    TEXT,
  bytes_read        INTEGER NOT NULL DEFAULT 0,
  lines_read        INTEGER NOT NULL DEFAULT 0,
  events            INTEGER NOT NULL DEFAULT 0,
  denied            INTEGER NOT NULL DEFAULT 0,
  rejects           TEXT,
  report            TEXT,
  platforms_version TEXT
);
CREATE INDEX jobs_state ON jobs (state);
CREATE INDEX jobs_created_at ON jobs (created_at);
