-- Usage counters per day and platform, kept when retention removes the jobs' rows and folders.
-- `platform` is '' for the day's totals. Filled by a trigger when a job leaves the running state.
CREATE TABLE usage_days (
  day         TEXT NOT NULL,          -- YYYY-MM-DD (UTC) of the job's start
  platform    TEXT NOT NULL,
  jobs        INTEGER NOT NULL DEFAULT 0,
  failed      INTEGER NOT NULL DEFAULT 0,
  bytes       INTEGER NOT NULL DEFAULT 0,
  lines       INTEGER NOT NULL DEFAULT 0,
  events      INTEGER NOT NULL DEFAULT 0,
  denied      INTEGER NOT NULL DEFAULT 0,
  rejected    INTEGER NOT NULL DEFAULT 0,  -- the lines the rejection rate counts (reference 4.4)
  filtered    INTEGER NOT NULL DEFAULT 0,  -- filtered-ecs, left out of the rate's denominator
  duration_ms INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (day, platform)
) WITHOUT ROWID;

-- A report that is not JSON counts no platform (json_each would fail the job's update).
CREATE TRIGGER jobs_usage AFTER UPDATE OF state ON jobs
WHEN OLD.state = 'running' AND NEW.state != 'running'
BEGIN
  INSERT INTO usage_days (day, platform, jobs, failed, bytes, lines, events, denied, rejected, filtered, duration_ms)
  VALUES (
    substr(NEW.created_at, 1, 10), '', 1, NEW.state != 'done', NEW.bytes_read, NEW.lines_read, NEW.events, NEW.denied,
    (SELECT coalesce(sum(value), 0) FROM json_each(CASE WHEN json_valid(NEW.rejects) THEN NEW.rejects ELSE '{}' END)
      WHERE key IN ('unknown-formats', 'unknown-domains', 'unqualified-ecs', 'unknown-errors', 'duplicate-ecs', 'unordered-ecs')),
    (SELECT coalesce(sum(value), 0) FROM json_each(CASE WHEN json_valid(NEW.rejects) THEN NEW.rejects ELSE '{}' END)
      WHERE key = 'filtered-ecs'),
    max(0, CAST(round((julianday(coalesce(NEW.ended_at, NEW.created_at)) - julianday(NEW.created_at)) * 86400000) AS INTEGER))
  )
  ON CONFLICT (day, platform) DO UPDATE SET
    jobs = jobs + 1, failed = failed + excluded.failed, bytes = bytes + excluded.bytes, lines = lines + excluded.lines,
    events = events + excluded.events, denied = denied + excluded.denied, rejected = rejected + excluded.rejected,
    filtered = filtered + excluded.filtered, duration_ms = duration_ms + excluded.duration_ms;
  INSERT INTO usage_days (day, platform, jobs, events)
  SELECT substr(NEW.created_at, 1, 10), substr(key, 10), 1, value
  FROM json_each(CASE WHEN json_valid(NEW.report) THEN NEW.report ELSE '{}' END, '$.stats')
  WHERE key LIKE 'platform-%' AND typeof(value) = 'integer'
  ON CONFLICT (day, platform) DO UPDATE SET jobs = jobs + 1, events = events + excluded.events;
END;

-- The jobs that ended before this table existed.
INSERT INTO usage_days (day, platform, jobs, failed, bytes, lines, events, denied)
SELECT substr(created_at, 1, 10), '', count(*), sum(state != 'done'), sum(bytes_read), sum(lines_read), sum(events), sum(denied)
FROM jobs WHERE state != 'running' GROUP BY substr(created_at, 1, 10);
