/**
 * `promise`, or the signal's reason once it aborts first. Each wait has its own promise and
 * listener, removed when it settles: racing many promises against one that lives as long as the
 * signal leaves a reaction on it per race, each holding what that race gave (every chunk of an
 * upload or a fetch, until the signal's end).
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  let onAbort = (): void => undefined;
  return new Promise<T>((resolve, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject);
  }).finally(() => signal.removeEventListener('abort', onAbort));
}
