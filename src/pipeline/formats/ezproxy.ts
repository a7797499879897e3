/** EZproxy dictionary (`Log-Format-ezproxy`, reference 2.2) and its token reader. */
import { listDirectives, readCustom, unknownDirective, where } from './grammar.js';
import { FormatError, type Dialect, type Directive } from './types.js';

/** A client address, or a proxy chain such as `172.28.4.47, 195.221.0.34` (kept as is). */
export const HOST_PATTERN = '([a-zA-Z0-9.\\-:]+(?:, ?[a-zA-Z0-9.\\-:]+)*)';
export const URL_PATTERN = '([^ ]+)';
/** method and protocol are matched but not kept */
export const REQUEST_PATTERN = '[A-Z]+ ([^ ]+) [^ ]+';
/** the brackets are part of the directive */
export const BRACKETED_DATE_PATTERN = '\\[([^\\]]+)\\]';

export const SAMPLE_HOST = '192.0.2.1';
export const SAMPLE_URL = 'http://www.example.com/x';
export const SAMPLE_DATE = '10/Apr/2012:09:38:11 +0200';

export const EZPROXY_DIRECTIVES: ReadonlyMap<string, Directive> = new Map([
  ['h', { property: 'host', pattern: HOST_PATTERN, sample: SAMPLE_HOST }],
  ['u', { property: 'login', pattern: '([a-zA-Z0-9@.\\-_%,=]+)', sample: 'jdoe' }],
  ['l', { property: 'identd', pattern: '([a-zA-Z0-9\\-]+)', sample: 'ident' }],
  // no `-` here, unlike Apache
  ['b', { property: 'size', pattern: '([0-9]+)', sample: '1234' }],
  ['U', { property: 'url', pattern: URL_PATTERN, sample: SAMPLE_URL }],
  ['m', { property: 'method', pattern: '([A-Z]+)', sample: 'GET' }],
  ['r', { property: 'url', pattern: REQUEST_PATTERN, sample: `GET ${SAMPLE_URL} HTTP/1.1` }],
  ['t', { property: 'datetime', pattern: BRACKETED_DATE_PATTERN, sample: `[${SAMPLE_DATE}]` }],
  ['s', { property: 'status', pattern: '([0-9]+)', sample: '200' }],
]);

export function isLetter(ch: string | undefined): boolean {
  return ch !== undefined && ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'));
}

/**
 * Reads `%x` with a dictionary whose keys are one letter, optionally preceded by `>` when
 * `allowGreater` (Apache `%>s`), plus the custom forms; shared by the EZproxy and Apache dialects.
 */
export function readLetterToken(
  literal: string,
  position: number,
  label: string,
  dictionary: ReadonlyMap<string, Directive>,
  allowGreater: boolean,
): ReturnType<Dialect['readToken']> {
  const next = literal[position + 1];
  if (next === '{' || next === '<') return readCustom(literal, position, true);
  let keyStart = position + 1;
  if (allowGreater && next === '>') keyStart++;
  const letter = literal[keyStart];
  if (!isLetter(letter)) {
    const token = literal.slice(position, keyStart + 1);
    throw new FormatError(
      `${token} ${where(position)} is not a directive of the ${label} format; write %% for a literal percent sign`,
      token,
      position,
    );
  }
  const key = literal.slice(position + 1, keyStart + 1);
  const directive = dictionary.get(key);
  const token = '%' + key;
  if (!directive) throw unknownDirective(label, token, position, listDirectives(dictionary.keys()));
  return { token: { kind: 'directive', token, position, directive, padded: false }, end: keyStart + 1 };
}

export const ezproxyDialect: Dialect = {
  family: 'ezproxy',
  label: 'EZproxy',
  readToken: (literal, position) => readLetterToken(literal, position, 'EZproxy', EZPROXY_DIRECTIVES, false),
};
