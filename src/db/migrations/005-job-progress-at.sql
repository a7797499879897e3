-- When the job's progress (its counts and report) was last written. A job cut off by the end of
-- its process (kill -9) is found at the next start: it ended, as far as anyone knows, at its last
-- snapshot, not at that start (which counted the downtime as job time in the usage figures).
ALTER TABLE jobs ADD COLUMN progress_at TEXT;
