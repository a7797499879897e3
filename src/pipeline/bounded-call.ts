import { createContext, Script, type Context } from 'node:vm';

const CALL = new Script('call()');

/** `run` gave up: the function ran longer than its budget and was interrupted. */
export class CallTimeout extends Error {
  constructor(readonly ms: number) {
    super(`interrupted after ${ms} ms`);
    this.name = 'CallTimeout';
  }
}

/**
 * Runs functions on the main thread with a time budget. A regular expression written by a user
 * can backtrack for hours; the main thread must never wait on one, so the few lines it matches
 * itself (the format check of a job's first lines) go through here: V8's watchdog interrupts the
 * call, regular expression included. A call costs about 0.2 ms: for a handful of lines only.
 */
export class BoundedCaller {
  private readonly context: Context = createContext({ call: undefined });

  run<T>(fn: () => T, ms: number): T {
    this.context.call = fn;
    try {
      return CALL.runInContext(this.context, { timeout: ms }) as T;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw new CallTimeout(ms);
      throw err;
    } finally {
      this.context.call = undefined;
    }
  }
}
