import { parse as legacyParse } from 'node:url';
import { parse as parseQueryString } from 'node:querystring';
import { safeDecode, firstValue } from '../url-view.js';

/** A value flowing through a template: query parameters may be repeated, hence arrays. */
export type TemplateValue = string | string[] | undefined;

/** Lookup tables of one platform, by table name. */
export type Tables = Readonly<Record<string, Readonly<Record<string, string>>>>;

export interface TransformContext {
  readonly tables: Tables;
}

/** Reads another variable of the rule (for `or:NAME`). */
export type Resolve = (name: string) => TemplateValue;

export type Transform = (value: TemplateValue, ctx: TransformContext, resolve: Resolve) => TemplateValue;

export class RuleError extends Error {
  override name = 'RuleError';
}

const asString = (value: TemplateValue): string | undefined => firstValue(value);

function regexArg(name: string, source: string | undefined, flags: string): RegExp {
  if (source === undefined) throw new RuleError(`${name} needs a regular expression argument`);
  try {
    return new RegExp(source, flags);
  } catch (err) {
    throw new RuleError(`${name}: invalid regular expression ${JSON.stringify(source)}: ${(err as Error).message}`);
  }
}

function intArg(name: string, text: string | undefined, fallback?: number): number {
  if (text === undefined || text === '') {
    if (fallback !== undefined) return fallback;
    throw new RuleError(`${name} needs a number argument`);
  }
  const n = Number(text);
  if (!Number.isInteger(n)) throw new RuleError(`${name}: ${JSON.stringify(text)} is not an integer`);
  return n;
}

/** Each string transform sees the first value of a repeated parameter. */
function onString(fn: (s: string) => string | undefined): Transform {
  return (value) => {
    const s = asString(value);
    return s === undefined ? undefined : fn(s);
  };
}

function formatIssn(s: string): string | undefined {
  const compact = s.replace(/[^0-9Xx]/g, '').toUpperCase();
  return compact.length === 8 ? `${compact.slice(0, 4)}-${compact.slice(4)}` : undefined;
}

function formatIsbn(s: string): string | undefined {
  const compact = s.replace(/[^0-9Xx]/g, '').toUpperCase();
  return compact.length === 10 || compact.length === 13 ? compact : undefined;
}

/**
 * The transform vocabulary of templates: `{name|transform:arg:arg|...}`.
 * Every transform maps undefined to undefined, except `default`.
 */
export function makeTransform(name: string, args: string[]): Transform {
  const [a, b, c] = args;
  switch (name) {
    case 'upper': return onString((s) => s.toUpperCase());
    case 'lower': return onString((s) => s.toLowerCase());
    case 'trim': return onString((s) => s.trim());
    case 'decode': return onString((s) => safeDecode(s));
    case 'decodeplus': return onString((s) => safeDecode(s.replace(/\+/g, ' ')));
    case 'base64': return onString((s) => {
      const text = Buffer.from(s.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
      return text === '' ? undefined : text;
    });
    case 'issn': return onString(formatIssn);
    case 'isbn': return onString(formatIsbn);
    case 'compact': return onString((s) => s.replace(/[\s-]/g, ''));
    case 'int': return onString((s) => {
      const n = Number.parseInt(s, 10);
      return Number.isNaN(n) ? undefined : String(n);
    });
    case 'slice': {
      const start = intArg('slice', a, 0);
      const end = b === undefined || b === '' ? undefined : intArg('slice', b);
      return onString((s) => s.slice(start, end));
    }
    case 'pad': {
      const width = intArg('pad', a);
      const fill = b ?? '0';
      return onString((s) => s.padStart(width, fill));
    }
    case 'split': {
      if (a === undefined) throw new RuleError('split needs a separator argument');
      const index = intArg('split', b, 0);
      return onString((s) => {
        const parts = s.split(a);
        return parts.at(index);
      });
    }
    case 'replace': {
      const re = regexArg('replace', a, 'g' + (c ?? ''));
      const by = b ?? '';
      return onString((s) => s.replace(re, by));
    }
    case 'match': {
      const re = regexArg('match', a, c ?? '');
      const group = b;
      return onString((s) => {
        const m = re.exec(s);
        if (!m) return undefined;
        if (group !== undefined && group !== '') {
          return /^\d+$/.test(group) ? m[Number(group)] : m.groups?.[group];
        }
        return m.length > 1 ? m[1] : m[0];
      });
    }
    case 'default': {
      const fallback = a ?? '';
      return (value) => {
        const s = asString(value);
        return s === undefined || s === '' ? fallback : value;
      };
    }
    case 'lookup': {
      if (a === undefined) throw new RuleError('lookup needs a table name');
      const fallback = b;
      return (value, ctx) => {
        const table = ctx.tables[a];
        if (!table) throw new RuleError(`lookup: no table named ${a}`);
        const s = asString(value);
        if (s === undefined) return fallback;
        return Object.prototype.hasOwnProperty.call(table, s) ? table[s] : fallback;
      };
    }
    case 'query': {
      if (a === undefined) throw new RuleError('query needs a parameter name');
      return onString((s) => {
        const q = s.indexOf('?');
        const qs = q >= 0 ? s.slice(q + 1).split('#')[0] : s;
        return firstValue(parseQueryString(qs)[a]);
      });
    }
    case 'urlpart': {
      const part = a ?? 'pathname';
      if (!['hostname', 'pathname', 'search', 'hash', 'protocol'].includes(part)) {
        throw new RuleError(`urlpart: unknown part ${part}`);
      }
      return onString((s) => {
        const u = legacyParse(s) as unknown as Record<string, string | null>;
        const v = u[part];
        if (v === null || v === undefined || v === '') return undefined;
        return part === 'search' || part === 'hash' ? v.slice(1) : v;
      });
    }
    case 'or': {
      if (a === undefined) throw new RuleError('or needs a variable name');
      return (value, _ctx, resolve) => {
        const s = asString(value);
        return s === undefined || s === '' ? resolve(a) : value;
      };
    }
    case 'first': return (value) => firstValue(value);
    case 'last': return (value) => (Array.isArray(value) ? value[value.length - 1] : value);
    case 'join': {
      const sep = a ?? ',';
      return (value) => (Array.isArray(value) ? value.join(sep) : value);
    }
    default:
      throw new RuleError(`unknown transform ${JSON.stringify(name)}`);
  }
}

export const TRANSFORM_NAMES = [
  'upper', 'lower', 'trim', 'decode', 'decodeplus', 'base64', 'issn', 'isbn', 'compact', 'int',
  'slice', 'pad', 'split', 'replace', 'match', 'default', 'lookup', 'query', 'urlpart', 'first',
  'last', 'join', 'or',
] as const;
