import type { MiddlewareContext, MiddlewareModule } from '../../resources/middlewares.js';
import { isRejectCategory, type EventStage } from './types.js';

/** An extra middleware of repos/middlewares as a step of the chain (its factory runs once per job). */
export function externalStage(name: string, mod: MiddlewareModule, context: MiddlewareContext): EventStage {
  const fn = mod.default(context);
  return {
    name,
    run(ec) {
      const verdict = fn(ec);
      if (verdict === undefined || verdict === null) return undefined;
      if (typeof verdict === 'string' && isRejectCategory(verdict)) return verdict;
      throw new Error(`middleware ${name} returned ${JSON.stringify(verdict)}, not a reject category`);
    },
  };
}
