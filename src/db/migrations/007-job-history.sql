-- The job histories (GET /api/jobs, GET /api/jobs/{userId}) read jobs newest first, a page at a time.
CREATE INDEX jobs_owner_created_at ON jobs (owner, created_at, id);
CREATE INDEX jobs_created_at_id ON jobs (created_at, id);
DROP INDEX jobs_created_at;
