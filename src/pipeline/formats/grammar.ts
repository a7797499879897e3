/**
 * The part of format compilation shared by every family: splitting a format string into tokens,
 * reading the custom forms `%{name}`, `%{name}<re>`, `%<re>`, and assembling the tokens into one
 * anchored regex with the property of each capture group.
 *
 * The regex is built by concatenating pieces (never by `String.replace` on an escaped copy of the
 * format, whose replacement strings would interpret `$&`), and custom regexes are analysed so that
 * their own capturing groups are counted and mapped to null.
 */
import { FormatError, type CompiledFormat, type Dialect, type FormatToken, type ProxyFamily } from './types.js';

/** Longest format string accepted: a real one is a few hundred characters. */
export const MAX_FORMAT_LENGTH = 4096;

/** Pattern of `%{name}` without a regex (reference 2.1). */
export const DEFAULT_CUSTOM_PATTERN = '[a-zA-Z0-9\\-]+';

/** Every character with a meaning in a regex, outside or inside a class. */
const REGEX_SPECIAL = new Set('\\^$.*+?()[]{}|/-');

/** Literal text of a format as regex text: every special character escaped, nothing else changed. */
export function escapeLiteral(text: string): string {
  let out = '';
  for (const ch of text) out += REGEX_SPECIAL.has(ch) ? '\\' + ch : ch;
  return out;
}

/** 1-based column, for messages read by people. */
export function where(position: number): string {
  return `at character ${position + 1}`;
}

function isNameChar(code: number): boolean {
  return (
    (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 45 || code === 95
  );
}

/**
 * Index of the `>` closing a custom regex that starts at `start`, or -1.
 * A `>` that is escaped, inside a character class, or closing a group name (`(?<name>`, `\k<name>`)
 * does not end the regex, so named groups and lookbehinds can be written; a `<` is an ordinary
 * character. Every regex the reference accepted (no `<` nor `>` inside) ends at the same place.
 */
export function findRegexEnd(text: string, start: number): number {
  let inClass = false;
  let i = start;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '\\') {
      if (!inClass && text[i + 1] === 'k' && text[i + 2] === '<') {
        const close = text.indexOf('>', i + 3);
        if (close < 0) return -1;
        i = close + 1;
        continue;
      }
      i += 2;
      continue;
    }
    if (inClass) {
      if (ch === ']') inClass = false;
    } else if (ch === '[') {
      inClass = true;
    } else if (ch === '(' && text[i + 1] === '?' && text[i + 2] === '<' && text[i + 3] !== '=' && text[i + 3] !== '!') {
      const close = text.indexOf('>', i + 3);
      if (close < 0) return -1;
      i = close + 1;
      continue;
    } else if (ch === '>') {
      return i;
    }
    i++;
  }
  return -1;
}

/** Reads `{name}` at `open` (the index of `{`); returns the name and the index after `}`, or undefined. */
export function readBracedName(text: string, open: number): { name: string; end: number } | undefined {
  let i = open + 1;
  while (i < text.length && isNameChar(text.charCodeAt(i))) i++;
  if (i === open + 1 || text[i] !== '}') return undefined;
  return { name: text.slice(open + 1, i), end: i + 1 };
}

/** Reads the regex of a custom form whose `<` is at `open`; throws when it is not closed or empty. */
export function readCustomRegex(text: string, open: number, token: string, position: number): { regex: string; end: number } {
  const close = findRegexEnd(text, open + 1);
  if (close < 0) {
    throw new FormatError(
      `the regex of ${token}… ${where(position)} is not closed: end it with > (a > inside [ ] or escaped as \\> does not count)`,
      token,
      position,
    );
  }
  if (close === open + 1) {
    throw new FormatError(`${token}> ${where(position)} has an empty regex`, `${token}>`, position);
  }
  return { regex: text.slice(open + 1, close), end: close + 1 };
}

/**
 * Reads a custom form at `position` (a `%` followed by `{` or `<`):
 * `%{name}`, `%{name}<re>`, `%<re>`, and with `headerSuffix` also `%{name}i`, `%{name}i<re>`
 * (EZproxy/Apache request-header syntax; the header name becomes the property).
 */
export function readCustom(
  text: string,
  position: number,
  headerSuffix: boolean,
): { token: FormatToken; end: number } {
  if (text[position + 1] === '<') {
    const { regex, end } = readCustomRegex(text, position + 1, '%<', position);
    return { token: { kind: 'custom', token: text.slice(position, end), position, name: null, regex }, end };
  }
  const braced = readBracedName(text, position + 1);
  if (!braced) {
    throw new FormatError(
      `${text.slice(position, position + 12)}… ${where(position)}: a custom field is written %{name} with a name of letters, digits, - and _`,
      text.slice(position, position + 2),
      position,
    );
  }
  let end = braced.end;
  if (headerSuffix && text[end] === 'i') end++;
  if (text[end] === '<') {
    const { regex, end: after } = readCustomRegex(text, end, text.slice(position, end + 1), position);
    return { token: { kind: 'custom', token: text.slice(position, after), position, name: braced.name, regex }, end: after };
  }
  return { token: { kind: 'custom', token: text.slice(position, end), position, name: braced.name, regex: undefined }, end };
}

/** Splits a format into tokens: `%%` is a literal percent, every other `%` is read by the dialect. */
export function tokenize(dialect: Dialect, literal: string): FormatToken[] {
  if (literal.length > MAX_FORMAT_LENGTH) {
    throw new FormatError(
      `the format is ${literal.length} characters long; the limit is ${MAX_FORMAT_LENGTH}`,
      undefined,
      MAX_FORMAT_LENGTH,
    );
  }
  const tokens: FormatToken[] = [];
  let text = '';
  let i = 0;
  while (i < literal.length) {
    const percent = literal.indexOf('%', i);
    if (percent < 0) {
      text += literal.slice(i);
      break;
    }
    text += literal.slice(i, percent);
    if (literal[percent + 1] === '%') {
      text += '%';
      i = percent + 2;
      continue;
    }
    if (percent + 1 >= literal.length) {
      throw new FormatError(`the format ends with a lone % ${where(percent)}; write %% for a literal percent sign`, '%', percent);
    }
    if (text) tokens.push({ kind: 'text', text });
    text = '';
    const read = dialect.readToken(literal, percent);
    tokens.push(read.token);
    i = read.end;
  }
  if (text) tokens.push({ kind: 'text', text });
  return tokens;
}

interface RegexFacts {
  /** capturing groups, numbered or named */
  readonly captures: number;
  /** names of the named groups */
  readonly names: readonly string[];
  /** numeric backreferences `\N` outside classes: where they are and their number */
  readonly backrefs: readonly { readonly start: number; readonly end: number; readonly n: number }[];
}

/** Counts the capturing groups of a regex source (JS syntax, no flags) and finds its backreferences. */
export function analyseRegex(source: string): RegexFacts {
  let captures = 0;
  const names: string[] = [];
  const backrefs: { start: number; end: number; n: number }[] = [];
  let inClass = false;
  let i = 0;
  while (i < source.length) {
    const ch = source[i];
    if (ch === '\\') {
      const next = source.charCodeAt(i + 1);
      if (!inClass && next >= 49 && next <= 57) {
        let j = i + 1;
        while (j < source.length && source.charCodeAt(j) >= 48 && source.charCodeAt(j) <= 57) j++;
        backrefs.push({ start: i, end: j, n: Number(source.slice(i + 1, j)) });
        i = j;
        continue;
      }
      if (!inClass && source[i + 1] === 'k' && source[i + 2] === '<') {
        const close = source.indexOf('>', i + 3);
        i = close < 0 ? source.length : close + 1;
        continue;
      }
      i += 2;
      continue;
    }
    if (inClass) {
      if (ch === ']') inClass = false;
    } else if (ch === '[') {
      inClass = true;
    } else if (ch === '(') {
      if (source[i + 1] !== '?') {
        captures++;
      } else if (source[i + 2] === '<' && source[i + 3] !== '=' && source[i + 3] !== '!') {
        const close = source.indexOf('>', i + 3);
        captures++;
        names.push(source.slice(i + 3, close < 0 ? source.length : close));
      }
    }
    i++;
  }
  return { captures, names, backrefs };
}

/**
 * A custom regex as it goes into the whole pattern: its numeric backreferences renumbered to
 * point at its own groups wherever it lands. A `\N` that refers to no group of its own would
 * silently become a reference to another field's group, so it is refused.
 */
function relocate(regex: string, facts: RegexFacts, groupsBefore: number, token: string, position: number): string {
  if (facts.backrefs.length === 0) return regex;
  let out = '';
  let last = 0;
  for (const ref of facts.backrefs) {
    if (ref.n > facts.captures) {
      throw new FormatError(
        `${token} ${where(position)}: \\${ref.n} refers to no group of this regex; write a character as \\xNN instead`,
        token,
        position,
      );
    }
    out += regex.slice(last, ref.start) + '\\' + String(ref.n + groupsBefore);
    last = ref.end;
  }
  return out + regex.slice(last);
}

/** Assembles tokens into the compiled format; validates every custom regex and the whole pattern. */
export function assemble(family: ProxyFamily, label: string, literal: string, tokens: readonly FormatToken[]): CompiledFormat {
  let pattern = '^';
  const groups: (string | null)[] = [];
  const fieldNames: string[] = [];
  const customNames = new Map<string, string>();
  const notes: string[] = [];
  const groupNames = new Set<string>();

  const addField = (name: string) => {
    if (!fieldNames.includes(name)) fieldNames.push(name);
  };

  for (const token of tokens) {
    if (token.kind === 'text') {
      pattern += escapeLiteral(token.text);
      continue;
    }
    if (token.kind === 'directive') {
      if (token.padded) pattern += '[ ]*';
      pattern += token.directive.pattern;
      groups.push(token.directive.property);
      addField(token.directive.property);
      continue;
    }
    const { name, position } = token;
    if (name !== null) {
      if (name === '__proto__') {
        throw new FormatError(`${token.token} ${where(position)}: __proto__ cannot be a field name`, token.token, position);
      }
      const previous = customNames.get(name);
      if (previous !== undefined) {
        throw new FormatError(
          `the custom field name "${name}" is used twice (${previous} and ${token.token} ${where(position)}); give each custom field its own name`,
          token.token,
          position,
        );
      }
      customNames.set(name, token.token);
    }
    if (token.regex === undefined) {
      pattern += '(' + DEFAULT_CUSTOM_PATTERN + ')';
      groups.push(name);
      if (name !== null) addField(name);
      continue;
    }
    let regex = token.regex;
    try {
      new RegExp(regex);
    } catch (err) {
      const message = (err as Error).message;
      const lenient = /range out of order/i.test(message) ? literalReversedHyphens(regex) : undefined;
      if (lenient !== undefined && compiles(lenient)) {
        notes.push(`the regex of ${token.token} ${where(position)} has a - between two characters in reverse order inside [ ]: read as the character -`);
        regex = lenient;
      } else {
      const hint = /range out of order/i.test(message) ? ' (a - inside [ ] is a range: put it first, last, or write \\-)' : '';
        throw new FormatError(
          `the regex of ${token.token} ${where(position)} does not compile: ${message}${hint}`,
          token.token,
          position,
        );
      }
    }
    const facts = analyseRegex(regex);
    for (const groupName of facts.names) {
      if (groupNames.has(groupName)) {
        throw new FormatError(
          `${token.token} ${where(position)}: the regex group name "${groupName}" is used twice in the format`,
          token.token,
          position,
        );
      }
      groupNames.add(groupName);
    }
    const inner = relocate(regex, facts, groups.length + (name === null ? 0 : 1), token.token, position);
    if (name === null) {
      // wrapped so that an alternation inside stays inside
      pattern += '(?:' + inner + ')';
    } else {
      pattern += '(' + inner + ')';
      groups.push(name);
      addField(name);
    }
    for (let k = 0; k < facts.captures; k++) groups.push(null);
  }
  pattern += '$';

  if (fieldNames.length === 0) {
    throw new FormatError(`the ${label} format captures no field: it needs at least one directive such as %h, or a custom %{name}`);
  }
  let regex: RegExp;
  try {
    regex = new RegExp(pattern);
  } catch (err) {
    throw new FormatError(`the ${label} format does not compile into a regex: ${(err as Error).message}`);
  }
  // `x|` matches the empty string, so exec tells how many groups the engine really sees
  const seen = new RegExp(pattern + '|').exec('')!.length - 1;
  if (seen !== groups.length) {
    throw new FormatError(`internal error: ${groups.length} groups mapped but the regex has ${seen}`);
  }
  return Object.freeze({
    family,
    literal,
    regex,
    source: regex.toString(),
    groups: Object.freeze(groups),
    fieldNames: Object.freeze(fieldNames),
    ...(notes.length > 0 ? { notes: Object.freeze(notes) } : {}),
  });
}

function compiles(source: string): boolean {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}

/**
 * `[a-z&- ]` written for the characters &, - and space: a range whose ends are in reverse order
 * is always a syntax error, so reading its - as the character changes no pattern that compiled.
 * Returns the pattern with such hyphens escaped, or undefined when there is none.
 */
export function literalReversedHyphens(source: string): string | undefined {
  let out = '';
  let changed = false;
  let inClass = false;
  // the previous atom of the class when it is a plain character that could start a range
  let previous: string | undefined;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      out += source.slice(i, i + 2);
      i++;
      previous = undefined;
      continue;
    }
    if (!inClass) {
      out += c;
      if (c === '[') {
        inClass = true;
        previous = undefined;
        // a leading ^ negates the class; it starts no range
        if (source[i + 1] === '^') out += source[++i];
      }
      continue;
    }
    if (c === ']') {
      inClass = false;
    } else if (c === '-' && previous !== undefined) {
      const next = source[i + 1];
      if (next !== undefined && next !== ']' && next !== '\\' && previous.codePointAt(0)! > next.codePointAt(0)!) {
        out += '\\-';
        changed = true;
        previous = undefined;
        continue;
      }
      // a well-ordered range: its end is no start of another one
      out += c + (next ?? '');
      i++;
      previous = undefined;
      continue;
    }
    previous = c;
    out += c;
  }
  return changed ? out : undefined;
}

/** The error for a `%x` that the family does not know (the reference silently kept it as text). */
export function unknownDirective(label: string, token: string, position: number, supported: string): FormatError {
  return new FormatError(
    `unknown ${label} directive ${token} ${where(position)}; supported: ${supported}; ` +
      `custom fields: %{name} or %{name}<regex>, text to skip: %<regex>; write %% for a literal percent sign`,
    token,
    position,
  );
}

/** Names of a dictionary's directives, for error messages. */
export function listDirectives(keys: Iterable<string>): string {
  return [...keys].map((k) => '%' + k).join(' ');
}
