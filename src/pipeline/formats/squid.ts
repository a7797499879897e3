/**
 * Squid dictionary (`Log-Format-squid`, reference 2.4) and its token reader.
 *
 * A member is `%`, an optional modifier among `"` `[` `'` `#`, an optional `-`, an optional width
 * `N` or `N.M`, an optional `{arg}`, then the code; only the code matters. Members may be padded
 * with spaces (`%6tr`), so each one is inserted as `[ ]*` + its group.
 *
 * The custom forms are read before members so that `%<HTTP/1.1>` is a regex and not the code
 * `<HT` (the reference's quirk); but a `%<` followed by a known code (`%<st`, `%<a`, `%<A`) stays
 * that code, since real formats such as `%<A:%lp %>a` and `%<st %>a` depend on it. To skip text
 * starting with one of those codes, wrap it: `%<(?:st…)>`.
 */
import { HOST_PATTERN, SAMPLE_DATE, SAMPLE_HOST, SAMPLE_URL, isLetter } from './ezproxy.js';
import { findRegexEnd, listDirectives, readBracedName, readCustom, unknownDirective, where } from './grammar.js';
import { FormatError, type Dialect, type Directive, type FormatToken } from './types.js';

export const SQUID_DIRECTIVES: ReadonlyMap<string, Directive> = new Map([
  ['ts', { property: 'timestamp', pattern: '([0-9]+)', sample: '1319061710' }],
  ['tu', { property: 'subsecond', pattern: '([0-9]+)', sample: '284' }],
  ['tr', { property: 'responseTime', pattern: '([0-9]+)', sample: '2102' }],
  ['tl', { property: 'datetime', pattern: '([^\\]]+)', sample: SAMPLE_DATE }],
  ['>a', { property: 'host', pattern: HOST_PATTERN, sample: SAMPLE_HOST }],
  ['<a', { property: 'lastConnection', pattern: '([a-zA-Z0-9\\.\\-, ]+)', sample: '198.51.100.2' }],
  ['<A', { property: 'domain', pattern: '([a-zA-Z0-9\\.\\-]+)', sample: 'www.example.com' }],
  ['Ss', { property: 'squidRequestStatus', pattern: '([a-zA-Z_]+)', sample: 'TCP_MISS' }],
  ['lp', { property: 'port', pattern: '([0-9]+)', sample: '443' }],
  ['>Hs', { property: 'status', pattern: '([0-9]+)', sample: '200' }],
  ['<st', { property: 'size', pattern: '([0-9]+)', sample: '1234' }],
  ['rm', { property: 'method', pattern: '([A-Z]+)', sample: 'GET' }],
  ['rv', { property: 'protocolVersion', pattern: '([0-9]\\.[0-9])', sample: '1.1' }],
  ['ru', { property: 'url', pattern: '([^ ]+)', sample: SAMPLE_URL }],
  ['un', { property: 'login', pattern: '([a-zA-Z0-9@\\.\\-_%=,]+)', sample: 'jdoe' }],
  ['Sh', { property: 'squidHierarchyStatus', pattern: '([a-zA-Z_]+)', sample: 'DIRECT' }],
  ['mt', { property: 'mime', pattern: '([a-zA-Z]+\\/[a-zA-Z0-9\\-]+|\\-)', sample: 'text/html' }],
  ['ui', { property: 'identd', pattern: '([a-zA-Z0-9\\-]+)', sample: 'ident' }],
]);

const SUPPORTED = listDirectives(SQUID_DIRECTIVES.keys());

function isDigit(ch: string | undefined): boolean {
  return ch !== undefined && ch >= '0' && ch <= '9';
}

/**
 * Reads the member syntax at `position`. Returns the known code found (longest first: `%>aX` is
 * `>a` then the text `X`), or `written` = the code as the reference grammar would read it when it
 * is unknown; undefined when the text is not member syntax at all.
 */
function readMember(
  literal: string,
  position: number,
): { key: string; directive: Directive; end: number } | { written: string; end: number } | undefined {
  let i = position + 1;
  if ('"[\'#'.includes(literal[i] ?? '\u0000')) i++;
  if (literal[i] === '-') i++;
  if (isDigit(literal[i])) {
    while (isDigit(literal[i])) i++;
    if (literal[i] === '.' && isDigit(literal[i + 1])) {
      i++;
      while (isDigit(literal[i])) i++;
    }
  }
  if (literal[i] === '{') {
    const braced = readBracedName(literal, i);
    if (!braced || braced.name.includes('_')) return undefined;
    i = braced.end;
  }
  const codeStart = i;
  if (literal[i] === '<' || literal[i] === '>') i++;
  if (!isLetter(literal[i])) return undefined;
  const lettersEnd = isLetter(literal[i + 1]) ? i + 2 : i + 1;
  for (let end = lettersEnd; end > i; end--) {
    const key = literal.slice(codeStart, end);
    const directive = SQUID_DIRECTIVES.get(key);
    if (directive) return { key, directive, end };
  }
  return { written: literal.slice(codeStart, lettersEnd), end: lettersEnd };
}

function memberToken(literal: string, position: number, member: { directive: Directive; end: number }) {
  const token: FormatToken = {
    kind: 'directive',
    token: literal.slice(position, member.end),
    position,
    directive: member.directive,
    padded: true,
  };
  return { token, end: member.end };
}

function unknownCode(literal: string, position: number, end: number): FormatError {
  return unknownDirective('Squid', literal.slice(position, end), position, SUPPORTED);
}

export const squidDialect: Dialect = {
  family: 'squid',
  label: 'Squid',
  readToken(literal, position) {
    const next = literal[position + 1];
    if (next === '{') {
      const braced = readBracedName(literal, position + 1);
      // `%{name}<re>`: a custom field, unless the regex is never closed and a member reads instead
      if (braced && literal[braced.end] === '<' && findRegexEnd(literal, braced.end + 1) >= 0) {
        return readCustom(literal, position, false);
      }
      const member = readMember(literal, position);
      if (member && 'directive' in member) return memberToken(literal, position, member);
      if (member && 'written' in member && /^[<>]/.test(member.written)) {
        throw unknownCode(literal, position, member.end);
      }
      return readCustom(literal, position, false);
    }
    const member = readMember(literal, position);
    if (member && 'directive' in member) return memberToken(literal, position, member);
    if (next === '<') return readCustom(literal, position, false);
    if (member) throw unknownCode(literal, position, member.end);
    throw new FormatError(
      `${literal.slice(position, position + 2)} ${where(position)} is not a Squid format code; write %% for a literal percent sign`,
      literal.slice(position, position + 2),
      position,
    );
  },
};
