-- A job belongs to the account that submitted it, by the account's id, not by its address: a
-- renamed account keeps its jobs, and an account later made with the old address (or the
-- address of a deleted one) does not get them.
-- The users' ids are never used again (AUTOINCREMENT), so that a deleted account's jobs stay
-- out of reach of the accounts made after it (administrators still see them).
CREATE TABLE users_new (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  userid        TEXT NOT NULL UNIQUE,
  password_hash TEXT NOT NULL,
  user_group    TEXT NOT NULL CHECK (user_group IN ('user', 'admin')),
  founder       INTEGER NOT NULL DEFAULT 0 CHECK (founder IN (0, 1)),
  created_at    TEXT NOT NULL,
  updated_at    TEXT NOT NULL
);
INSERT INTO users_new (id, userid, password_hash, user_group, founder, created_at, updated_at)
  SELECT id, userid, password_hash, user_group, founder, created_at, updated_at FROM users;
DROP TABLE users;
ALTER TABLE users_new RENAME TO users;
CREATE UNIQUE INDEX users_one_founder ON users (founder) WHERE founder = 1;
CREATE INDEX users_group ON users (user_group);

-- `user_id` stays the address the job was submitted with (for the lists); `owner` is the
-- account's id. A job whose address no account holds any more gets -1: no account's id.
ALTER TABLE jobs ADD COLUMN owner INTEGER;
UPDATE jobs SET owner = coalesce((SELECT id FROM users WHERE users.userid = jobs.user_id), -1) WHERE user_id IS NOT NULL;
