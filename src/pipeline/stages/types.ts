import type { AccessEvent } from '../event.js';

/** Where a line that gives no event ends up (the file is `lines-<category>.log`). */
export const REJECT_CATEGORIES = [
  'unknown-formats',
  'ignored-domains',
  'unknown-domains',
  'unqualified-ecs',
  'pkb-miss-ecs',
  'duplicate-ecs',
  'unordered-ecs',
  'robots-ecs',
  'ignored-hosts',
  'filtered-ecs',
  'unknown-errors',
] as const;

export type RejectCategory = (typeof REJECT_CATEGORIES)[number];

export function isRejectCategory(name: string): name is RejectCategory {
  return (REJECT_CATEGORIES as readonly string[]).includes(name);
}

/** What the stages learn about an event besides its fields. */
export interface EventFlags {
  /** HTTP 401/403, or the platform said access was not granted: goes to the denied file */
  denied: boolean;
  /** the platform has a knowledge base that does not know this title (counted; the event is kept) */
  pkbMiss: boolean;
  /** deduplicator: the event's double-click key and window (compared on the main thread) */
  dupKey?: string;
  dupWindow?: number;
  /** on-campus-counter: whether the client address is on campus */
  campus?: boolean;
}

/** A stage passes the event on (undefined) or rejects it into a category. */
export type StageVerdict = RejectCategory | undefined;

/** One step of the per-event chain run in the parsing workers. */
export interface EventStage {
  readonly name: string;
  run(ec: AccessEvent, flags: EventFlags): StageVerdict;
}
