import { setFlagsFromString } from 'node:v8';
import type { ResourceLimits } from 'node:worker_threads';

/**
 * The resource limits of a worker thread, in MB (0: V8's default). V8 gives the process's
 * `--max-semi-space-size` and `--max-old-space-size` (the start script's, meant for the main
 * thread) precedence over a worker's limits, which would make them do nothing: both flags are
 * cleared first, so that every thread created with these limits gets them. The main thread's
 * heap, configured when the process started, keeps its own.
 */
export function workerResourceLimits(heapMb: number, youngMb: number): ResourceLimits {
  setFlagsFromString('--max-semi-space-size=0');
  setFlagsFromString('--max-old-space-size=0');
  return {
    ...(heapMb ? { maxOldGenerationSizeMb: heapMb } : {}),
    ...(youngMb ? { maxYoungGenerationSizeMb: youngMb } : {}),
  };
}
