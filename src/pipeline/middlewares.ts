import { StatusError } from '../status-codes.js';

/**
 * The per-event chain, by name (reference 3.8). Each name is a step of the workers' chain, except
 * `deduplicator`, whose work is split: the workers compute each event's keys where it stands in the
 * chain, the main thread compares them in input order (with the chronology check).
 * `filter` is the validity and status filter, then the exclusion lists.
 */
export const BUILTIN_MIDDLEWARES = [
  'filter',
  'parser',
  'deduplicator',
  'enhancer',
  'geolocalizer',
  'cut',
  'on-campus-counter',
  'qualifier',
  'anonymizer',
] as const;

export type BuiltinMiddleware = (typeof BUILTIN_MIDDLEWARES)[number];

export const DEFAULT_MIDDLEWARES: readonly string[] = Object.freeze([...BUILTIN_MIDDLEWARES]);

export function isBuiltinMiddleware(name: string): name is BuiltinMiddleware {
  return (BUILTIN_MIDDLEWARES as readonly string[]).includes(name);
}

const NAME = /^[a-z0-9_-]+$/i;
const DIRECTIVE = /^\(\s*(before|after)\s+([^)]*?)\s*\)\s*|^\(\s*only\s*\)\s*/i;

/**
 * Applies an `ezPAARSE-Middlewares` header to the default chain: parts separated by `|`, each
 * `[(before X)|(after X)|(only)] name, name…`, applied left to right. Without a directive the
 * names go before `qualifier` (or before the last step when there is no qualifier); `(before X)` /
 * `(after X)` next to X, or where a plain part would go when X is not in the chain (so that
 * settings written for a chain with other steps still apply); `(only)` replaces the chain. A name
 * already in the chain is moved. Bad name → 4024, unknown name → 4025, or left out and told to
 * `skipUnknown` when it is given.
 */
export function resolveMiddlewares(header: string | undefined, defaults: readonly string[], known: (name: string) => boolean, skipUnknown?: (name: string) => void): string[] {
  let chain = [...defaults];
  if (header === undefined || header.trim() === '') return chain;
  for (const rawPart of header.split('|')) {
    let part = rawPart.trim();
    if (part === '') continue;
    let directive: { kind: 'before' | 'after' | 'only' | 'plain'; anchor?: string } = { kind: 'plain' };
    const m = DIRECTIVE.exec(part);
    if (m) {
      directive = m[1] ? { kind: m[1].toLowerCase() as 'before' | 'after', anchor: m[2].trim().toLowerCase() } : { kind: 'only' };
      part = part.slice(m[0].length);
    }
    const named = part.split(',').map((n) => n.trim().toLowerCase()).filter(Boolean);
    const names: string[] = [];
    for (const name of named) {
      if (!NAME.test(name)) throw new StatusError(4024, `ezPAARSE-Middlewares: ${JSON.stringify(name)} (letters, digits, - and _ only)`);
      if (known(name)) names.push(name);
      else if (skipUnknown) skipUnknown(name);
      else throw new StatusError(4025, `ezPAARSE-Middlewares: ${JSON.stringify(name)} (see /info/middlewares)`);
    }
    // every name left out: the part changes nothing (an `(only)` of none would leave no chain)
    if (names.length === 0 && named.length > 0) continue;
    if (directive.kind === 'only') {
      chain = [...new Set(names)];
      continue;
    }
    chain = chain.filter((n) => !names.includes(n));
    let at: number;
    const anchor = directive.anchor !== undefined ? chain.indexOf(directive.anchor) : -1;
    if (anchor >= 0) at = directive.kind === 'before' ? anchor : anchor + 1;
    else {
      const q = chain.indexOf('qualifier');
      at = q >= 0 ? q : Math.max(chain.length - 1, 0);
    }
    chain.splice(at, 0, ...new Set(names));
  }
  return chain;
}
