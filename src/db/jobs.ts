import { writeWhenFree, type Db } from './database.js';

export type JobState = 'running' | 'done' | 'failed' | 'aborted' | 'interrupted';

export interface JobRow {
  id: string;
  state: JobState;
  /** the address the job was submitted with */
  user_id: string | null;
  /** the submitting account's id (null: submitted without a login) */
  owner: number | null;
  created_at: string;
  ended_at: string | null;
  request_headers: string;
  status_code: number | null;
  status_message: string | null;
  bytes_read: number;
  lines_read: number;
  events: number;
  denied: number;
  rejects: string | null;
  report: string | null;
  platforms_version: string | null;
  /** when the counts and report were last saved (migration 005; null before the first save) */
  progress_at: string | null;
}

export interface JobProgress {
  bytesRead: number;
  linesRead: number;
  events: number;
  denied: number;
  rejects: Record<string, number>;
  report?: unknown;
}

/** The headers a job row recorded (its output settings among them); none when unreadable. */
export function recordedHeaders(row: Pick<JobRow, 'request_headers'> | undefined): Record<string, string> {
  try {
    const headers: unknown = JSON.parse(row?.request_headers ?? '{}');
    return headers !== null && typeof headers === 'object' ? (headers as Record<string, string>) : {};
  } catch {
    return {};
  }
}

/** One line of a job history: the job's row, its submitter's current login (or the one it was submitted with). */
export interface HistoryRow {
  id: string;
  state: JobState;
  login: string | null;
  created_at: string;
  ended_at: string | null;
  lines_read: number;
  events: number;
  denied: number;
  status_code: number | null;
  status_message: string | null;
}

export interface HistoryQuery {
  /** one account's jobs (its id); all jobs when undefined */
  owner?: number;
  /** the jobs created before this one (the last of the previous page) */
  before?: { createdAt: string; id: string };
  limit: number;
}

export const INTERRUPTED_MESSAGE = 'The service stopped while the job was running';

/** The job table's statements, prepared once. */
export class JobStore {
  private readonly insert;
  private readonly progress;
  private readonly finish;
  private readonly byId;
  private readonly interrupt;
  private readonly endedBeforeQuery;
  private readonly remove;
  private readonly historyAll;
  private readonly historyOwner;

  constructor(private readonly db: Db) {
    this.insert = db.prepare(`INSERT INTO jobs (id, state, user_id, owner, created_at, request_headers, platforms_version)
      VALUES (@id, 'running', @userId, @owner, @createdAt, @headers, @platformsVersion)`);
    this.progress = db.prepare(`UPDATE jobs SET progress_at = @at, bytes_read = @bytesRead, lines_read = @linesRead, events = @events,
      denied = @denied, rejects = @rejects, report = coalesce(@report, report) WHERE id = @id`);
    this.finish = db.prepare(`UPDATE jobs SET state = @state, ended_at = @endedAt, status_code = @statusCode,
      status_message = @statusMessage, bytes_read = @bytesRead, lines_read = @linesRead, events = @events,
      denied = @denied, rejects = @rejects, report = coalesce(@report, report) WHERE id = @id`);
    this.byId = db.prepare('SELECT * FROM jobs WHERE id = ?');
    // A job cut off by its process's end ended, as far as is known, at its last saved snapshot
    // (its counts are those), not at the next start: the downtime is no job time.
    this.interrupt = db.prepare(`UPDATE jobs SET state = 'interrupted', ended_at = coalesce(progress_at, created_at),
      status_code = coalesce(status_code, 5003), status_message = coalesce(status_message, '${INTERRUPTED_MESSAGE}')
      WHERE state = 'running' RETURNING id, ended_at AS endedAt`);
    // A job that never got an end time (the process died) is aged from its start.
    this.endedBeforeQuery = db.prepare(`SELECT id FROM jobs WHERE state != 'running' AND coalesce(ended_at, created_at) < ?`).pluck();
    this.remove = db.prepare('DELETE FROM jobs WHERE id = ?');
    // Newest first; the page's cursor is the last job shown, by (created_at, id), as two jobs may start in the same millisecond.
    const history = (where: string) => db.prepare(`SELECT j.id, j.state, coalesce(u.userid, j.user_id) AS login, j.created_at,
      j.ended_at, j.lines_read, j.events, j.denied, j.status_code, j.status_message
      FROM jobs j LEFT JOIN users u ON u.id = j.owner
      WHERE ${where} (@beforeAt IS NULL OR (j.created_at, j.id) < (@beforeAt, @beforeId))
      ORDER BY j.created_at DESC, j.id DESC LIMIT @limit`);
    this.historyAll = history('');
    this.historyOwner = history('j.owner = @owner AND');
  }

  /** `write` (a call of this store) retried while another process holds the file: see writeWhenFree */
  whenFree<T>(write: () => T, waitMs?: number): Promise<T> {
    return writeWhenFree(this.db, write, waitMs);
  }

  /** the SQLite file (what a storage error names) */
  get file(): string {
    return this.db.name;
  }

  create(job: { id: string; user?: { id: number; username: string }; createdAt: string; headers: Record<string, unknown>; platformsVersion?: string }): void {
    this.insert.run({
      id: job.id,
      userId: job.user?.username ?? null,
      owner: job.user?.id ?? null,
      createdAt: job.createdAt,
      headers: JSON.stringify(job.headers),
      platformsVersion: job.platformsVersion ?? null,
    });
  }

  saveProgress(id: string, p: JobProgress, at = new Date()): void {
    this.progress.run({ id, at: at.toISOString(), ...this.counters(p) });
  }

  end(id: string, state: Exclude<JobState, 'running'>, p: JobProgress, status?: { code: number; message: string }, endedAt = new Date()): void {
    this.finish.run({
      id, state, endedAt: endedAt.toISOString(),
      statusCode: status?.code ?? null, statusMessage: status?.message ?? null,
      ...this.counters(p),
    });
  }

  get(id: string): JobRow | undefined {
    return this.byId.get(id) as JobRow | undefined;
  }

  /** A page of the job history, newest first. */
  history(q: HistoryQuery): HistoryRow[] {
    const params = { beforeAt: q.before?.createdAt ?? null, beforeId: q.before?.id ?? null, limit: q.limit };
    const rows = q.owner === undefined ? this.historyAll.all(params) : this.historyOwner.all({ ...params, owner: q.owner });
    return rows as HistoryRow[];
  }

  /** Ids of the jobs that ended before `cutoff` (ISO time); running jobs never. */
  endedBefore(cutoff: string): string[] {
    return this.endedBeforeQuery.all(cutoff) as string[];
  }

  delete(id: string): boolean {
    return this.remove.run(id).changes > 0;
  }

  /**
   * At start: jobs left "running" by a previous process were cut off; returns their ids and the
   * end time given them (their last snapshot's).
   */
  markInterrupted(): Array<{ id: string; endedAt: string }> {
    return this.interrupt.all() as Array<{ id: string; endedAt: string }>;
  }

  private counters(p: JobProgress) {
    return {
      bytesRead: p.bytesRead, linesRead: p.linesRead, events: p.events, denied: p.denied,
      rejects: JSON.stringify(p.rejects), report: p.report === undefined ? null : JSON.stringify(p.report),
    };
  }
}
