/**
 * The format tester's worker: runs `testFormat` with every regex inside a `vm` script whose
 * timeout is what is left of the request's budget (V8 interrupts a backtracking regex there).
 * The pool also stops this thread if a task outlives its budget by far (the outer safety net).
 */
import vm from 'node:vm';
import { BudgetExceeded, testFormat, TesterInputError, type FormatTestInput, type FormatTestResult, type Matcher } from '../src/pipeline/formats/tester.js';
import { discoverFormats, type DiscoverInput, type DiscoverResult, type ManyMatcher } from '../src/pipeline/formats/discover.js';

/** A format tried on pasted lines (`PUT /api/format/logparser`), or the predefined settings' formats (`PUT /api/format/discover`). */
export type FormatTask =
  | { readonly kind?: 'test'; readonly input: FormatTestInput; readonly budgetMs: number }
  | { readonly kind: 'discover'; readonly input: DiscoverInput; readonly budgetMs: number };

export type FormatTaskResult<R = FormatTestResult> =
  | { readonly ok: true; readonly result: R }
  | { readonly ok: false; readonly code: string; readonly message: string; readonly position?: number };

const script = new vm.Script('r = null; re = new RegExp(s); r = ls.map((l) => { const m = re.exec(l); return m === null ? null : Array.from(m, (x) => (x === undefined ? null : x)); });');
const context = vm.createContext({ s: '', ls: [], re: null, r: null });

/** One regex on lines in one `vm` run, stopped at the deadline: one run a format, not one a line (entering it costs more than a match). */
function budgetedManyMatcher(deadline: number): ManyMatcher {
  return (source, lines) => {
    const left = deadline - Date.now();
    if (left <= 0) throw new BudgetExceeded();
    context.s = source;
    context.ls = lines;
    try {
      script.runInContext(context, { timeout: Math.max(1, Math.ceil(left)) });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw new BudgetExceeded();
      throw err;
    } finally {
      context.re = null;
      context.ls = [];
    }
    return context.r as Array<Array<string | null> | null>;
  };
}

function budgetedMatcher(deadline: number): Matcher {
  const many = budgetedManyMatcher(deadline);
  return (source, line) => many(source, [line])[0];
}

export default function run(task: FormatTask): FormatTaskResult<FormatTestResult | DiscoverResult> {
  // The budget starts when the task does, not when it was queued or the thread started.
  const deadline = Date.now() + task.budgetMs;
  try {
    return { ok: true, result: task.kind === 'discover' ? discoverFormats(task.input, budgetedManyMatcher(deadline)) : testFormat(task.input, budgetedMatcher(deadline)) };
  } catch (err) {
    if (err instanceof BudgetExceeded) return { ok: false, code: 'tooCostly', message: err.message };
    if (err instanceof TesterInputError) return { ok: false, code: err.code, message: err.message, position: err.position };
    throw err;
  }
}
