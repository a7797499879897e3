/**
 * Entry point of format compilation: `Log-Format-<family>` value → CompiledFormat.
 * Everything is validated here, at job start, so a bad format is a clear 400 instead of every
 * line silently failing (reference quirk 10.3).
 */
import { apacheDialect } from './apache.js';
import { bibliopamDialect, bibliopamLiteral } from './bibliopam.js';
import { ezproxyDialect } from './ezproxy.js';
import { assemble, tokenize } from './grammar.js';
import { squidDialect } from './squid.js';
import { FormatError, type CompiledFormat, type Dialect, type FormatToken, type ProxyFamily } from './types.js';

const DIALECTS: Readonly<Record<ProxyFamily, Dialect>> = {
  ezproxy: ezproxyDialect,
  apache: apacheDialect,
  squid: squidDialect,
  bibliopam: bibliopamDialect,
};

export function isProxyFamily(name: string): name is ProxyFamily {
  return Object.hasOwn(DIALECTS, name);
}

/** The format string a header value stands for (only Bibliopam has an alias, `standard`). */
function expand(family: ProxyFamily, literal: string): string {
  return family === 'bibliopam' ? bibliopamLiteral(literal) : literal;
}

/** The tokens of a format (also used to write sample lines). Throws FormatError. */
export function tokenizeFormat(family: ProxyFamily, literal: string): FormatToken[] {
  if (!isProxyFamily(family)) throw new FormatError(`unknown proxy family "${String(family)}"`);
  return tokenize(DIALECTS[family], expand(family, literal));
}

/** Compiles a format of one family; throws FormatError with a message saying what to fix. */
export function compileFormat(family: ProxyFamily, literal: string): CompiledFormat {
  if (!isProxyFamily(family)) {
    throw new FormatError(`unknown proxy family "${String(family)}"; expected one of ${Object.keys(DIALECTS).join(', ')}`);
  }
  const dialect = DIALECTS[family];
  const expanded = expand(family, literal);
  if (expanded.trim() === '') throw new FormatError(`the ${dialect.label} format is empty`);
  return assemble(family, dialect.label, expanded, tokenize(dialect, expanded));
}
