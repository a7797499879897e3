-- Accounts. `userid` is the lower-cased mail address (the login and the name in admin paths);
-- the integer id stays the same across a change of address.
CREATE TABLE users (
  id            INTEGER PRIMARY KEY,
  userid        TEXT NOT NULL UNIQUE,
  -- argon2id, PHC string (salt and parameters included); never sent out
  password_hash TEXT NOT NULL,
  user_group    TEXT NOT NULL CHECK (user_group IN ('user', 'admin')),
  -- 1 for the administrator created by POST /api/admin/register: it cannot be deleted or demoted
  founder       INTEGER NOT NULL DEFAULT 0 CHECK (founder IN (0, 1)),
  created_at    TEXT NOT NULL,
  updated_at    TEXT NOT NULL
);
-- At most one founder, whatever the callers do: a second registration cannot slip in.
CREATE UNIQUE INDEX users_one_founder ON users (founder) WHERE founder = 1;
CREATE INDEX users_group ON users (user_group);
