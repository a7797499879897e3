/**
 * A parsing worker of the Piscina pool: runs the format regex, the URL and date normalisation,
 * the platforms and the per-event chain on batches of whole lines, and serialises the events.
 */
import { workerData } from 'node:worker_threads';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { compilePlatformSet } from '../src/platforms/platform-set.js';
import type { PlatformSource } from '../src/platforms/loader.js';
import { createJobContext, processBatch, type JobContext, type SharedResources } from '../src/pipeline/batch-processor.js';
import type { BatchResult, JobSpec } from '../src/pipeline/job-spec.js';
import { EventPacker, transferables } from '../src/pipeline/packed-events.js';
import { openResources, type ResourceData } from '../src/resources/index.js';

export interface WorkerData {
  readonly platformSources: readonly PlatformSource[];
  readonly platformsVersion: string;
  readonly resources: ResourceData;
}

export interface BatchTask {
  readonly spec: JobSpec;
  readonly seq: number;
  readonly data: Uint8Array;
  /** events come back with their whole JSON too (the report still waits for its first event) */
  readonly wantJson: boolean;
}

const data = workerData as WorkerData;
const shared: SharedResources = {
  // each platform compiled at its first event: the main thread checked that all of them compile
  platforms: await compilePlatformSet(data.platformSources, data.platformsVersion, [], true),
  resources: await openResources(data.resources),
  packer: new EventPacker(),
};

// Jobs are compiled once per worker; the few most recent are kept.
const MAX_CONTEXTS = 16;
const contexts = new Map<string, JobContext>();

function contextFor(spec: JobSpec): JobContext {
  let ctx = contexts.get(spec.id);
  if (ctx) {
    contexts.delete(spec.id);
  } else {
    ctx = createJobContext(spec, shared);
    if (contexts.size >= MAX_CONTEXTS) contexts.delete(contexts.keys().next().value!);
  }
  contexts.set(spec.id, ctx);
  return ctx;
}

export default function parseBatch(task: BatchTask): BatchResult {
  const result = processBatch(contextFor(task.spec), task.data, task.seq, task.wantJson);
  // The events' buffers are moved to the main thread, not copied.
  return move({
    get [transferableSymbol]() { return transferables(result.events); },
    get [valueSymbol]() { return result; },
  }) as unknown as BatchResult;
}
