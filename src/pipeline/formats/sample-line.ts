/**
 * Writes a log line that a compiled format parses, with a non-empty value for every property:
 * the dictionary's sample for each directive and, for custom regexes, a short string matching the
 * regex. Used by tests, and useful to show users what a format expects.
 *
 * The regex generator is deterministic and prefers letters, then digits, so that values are
 * neither empty nor `-` (both would leave the property absent).
 */
import { tokenizeFormat } from './compile.js';
import { DEFAULT_CUSTOM_PATTERN } from './grammar.js';
import type { CompiledFormat } from './types.js';

type CharTest = (code: number) => boolean;

type Node =
  | { readonly t: 'seq'; readonly items: Node[] }
  | { readonly t: 'alt'; readonly alts: Node[] }
  | { readonly t: 'set'; readonly test: CharTest }
  | { readonly t: 'text'; readonly text: string }
  | { readonly t: 'group'; readonly index: number | null; readonly name: string | null; readonly body: Node; readonly look: boolean }
  | { readonly t: 'rep'; readonly node: Node; readonly min: number; readonly max: number }
  | { readonly t: 'ref'; readonly index: number | null; readonly name: string | null };

const isDigitCode: CharTest = (c) => c >= 48 && c <= 57;
const isWordCode: CharTest = (c) => isDigitCode(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
const isSpaceCode: CharTest = (c) =>
  c === 32 || (c >= 9 && c <= 13) || c === 160 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 ||
  c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
const isLineEnd: CharTest = (c) => c === 10 || c === 13 || c === 0x2028 || c === 0x2029;

/** Candidates in order of preference: letters, digits, then quiet punctuation, then the rest. */
const PREFERRED: number[] = (() => {
  const out: number[] = [];
  for (let c = 97; c <= 122; c++) out.push(c);
  for (let c = 65; c <= 90; c++) out.push(c);
  for (let c = 48; c <= 57; c++) out.push(c);
  for (const ch of ' ._/:,;+=@!~*()&#$') out.push(ch.charCodeAt(0));
  for (let c = 32; c < 0x3000; c++) if (!out.includes(c) && c !== 34 && c !== 45) out.push(c);
  for (let c = 0; c < 32; c++) out.push(c); // tabs and other controls only when asked for
  out.push(45, 34); // `-` and `"` last: a lone `-` is absent, quotes are stripped
  return out;
})();

function pick(test: CharTest): string {
  for (const c of PREFERRED) if (test(c)) return String.fromCharCode(c);
  throw new Error('sample-line: a character class matches no usable character');
}

/** A small recursive-descent reader of JS regex syntax (no flags), enough to generate matches. */
class RegexReader {
  private pos = 0;
  private groupCount = 0;

  constructor(private readonly src: string) {}

  read(): Node {
    const node = this.alternation();
    if (this.pos < this.src.length) throw new Error(`sample-line: cannot read regex ${this.src} at ${this.pos}`);
    return node;
  }

  private alternation(): Node {
    const alts = [this.sequence()];
    while (this.src[this.pos] === '|') {
      this.pos++;
      alts.push(this.sequence());
    }
    return alts.length === 1 ? alts[0] : { t: 'alt', alts };
  }

  private sequence(): Node {
    const items: Node[] = [];
    while (this.pos < this.src.length && this.src[this.pos] !== '|' && this.src[this.pos] !== ')') {
      items.push(this.quantified(this.atom()));
    }
    return { t: 'seq', items };
  }

  private quantified(node: Node): Node {
    const src = this.src;
    let min: number;
    let max: number;
    const ch = src[this.pos];
    if (ch === '*') [min, max] = [0, Infinity];
    else if (ch === '+') [min, max] = [1, Infinity];
    else if (ch === '?') [min, max] = [0, 1];
    else if (ch === '{') {
      const m = /^\{(\d+)(?:(,)(\d*))?\}/.exec(src.slice(this.pos));
      if (!m) return node; // a literal brace
      min = Number(m[1]);
      max = m[2] ? (m[3] ? Number(m[3]) : Infinity) : min;
      this.pos += m[0].length - 1;
    } else return node;
    this.pos++;
    if (src[this.pos] === '?') this.pos++; // lazy: same samples
    return { t: 'rep', node, min, max };
  }

  private atom(): Node {
    const src = this.src;
    const ch = src[this.pos++];
    switch (ch) {
      case '(':
        return this.group();
      case '[':
        return { t: 'set', test: this.charClass() };
      case '.':
        return { t: 'set', test: (c) => !isLineEnd(c) };
      case '^':
      case '$':
        return { t: 'text', text: '' };
      case '\\':
        return this.escape();
      default:
        return { t: 'text', text: ch };
    }
  }

  private group(): Node {
    const src = this.src;
    let index: number | null = null;
    let name: string | null = null;
    let look = false;
    if (src[this.pos] === '?') {
      const kind = src[this.pos + 1];
      if (kind === ':') this.pos += 2;
      else if (kind === '=' || kind === '!') [look, this.pos] = [true, this.pos + 2];
      else if (kind === '<' && (src[this.pos + 2] === '=' || src[this.pos + 2] === '!')) [look, this.pos] = [true, this.pos + 3];
      else if (kind === '<') {
        const close = src.indexOf('>', this.pos);
        name = src.slice(this.pos + 2, close);
        index = ++this.groupCount;
        this.pos = close + 1;
      }
    } else {
      index = ++this.groupCount;
    }
    const body = this.alternation();
    this.pos++; // ')'
    return { t: 'group', index, name, body, look };
  }

  /** One escape outside a class. */
  private escape(): Node {
    const src = this.src;
    const ch = src[this.pos];
    if (ch >= '1' && ch <= '9') {
      const m = /^\d+/.exec(src.slice(this.pos))!;
      this.pos += m[0].length;
      return { t: 'ref', index: Number(m[0]), name: null };
    }
    if (ch === 'k' && src[this.pos + 1] === '<') {
      const close = src.indexOf('>', this.pos);
      const name = src.slice(this.pos + 2, close);
      this.pos = close + 1;
      return { t: 'ref', index: null, name };
    }
    if (ch === 'b' || ch === 'B') {
      this.pos++;
      return { t: 'text', text: '' };
    }
    const test = this.classEscape();
    return typeof test === 'string' ? { t: 'text', text: test } : { t: 'set', test };
  }

  /** An escape that stands for a set (\d \w \s and negations) or for one character. */
  private classEscape(): CharTest | string {
    const src = this.src;
    const ch = src[this.pos++];
    switch (ch) {
      case 'd':
        return isDigitCode;
      case 'D':
        return (c) => !isDigitCode(c);
      case 'w':
        return isWordCode;
      case 'W':
        return (c) => !isWordCode(c);
      case 's':
        return isSpaceCode;
      case 'S':
        return (c) => !isSpaceCode(c);
      case 't':
        return '\t';
      case 'n':
        return '\n';
      case 'r':
        return '\r';
      case 'f':
        return '\f';
      case 'v':
        return '\v';
      case '0':
        return '\0';
      case 'x':
      case 'u': {
        const len = ch === 'x' ? 2 : 4;
        const hex = src.slice(this.pos, this.pos + len);
        if (/^[0-9a-fA-F]+$/.test(hex) && hex.length === len) {
          this.pos += len;
          return String.fromCharCode(parseInt(hex, 16));
        }
        return ch;
      }
      case 'c': {
        const letter = src[this.pos];
        if (letter && /[a-zA-Z]/.test(letter)) {
          this.pos++;
          return String.fromCharCode(letter.charCodeAt(0) % 32);
        }
        return '\\';
      }
      default:
        return ch;
    }
  }

  /** A character class after its `[`. */
  private charClass(): CharTest {
    const src = this.src;
    let negate = false;
    if (src[this.pos] === '^') {
      negate = true;
      this.pos++;
    }
    const parts: CharTest[] = [];
    while (this.pos < src.length && src[this.pos] !== ']') {
      const from = this.classAtom();
      if (src[this.pos] === '-' && src[this.pos + 1] !== ']' && this.pos + 1 < src.length) {
        const save = this.pos;
        this.pos++;
        const to = this.classAtom();
        if (typeof from === 'string' && typeof to === 'string') {
          const lo = from.charCodeAt(0);
          const hi = to.charCodeAt(0);
          parts.push((c) => c >= lo && c <= hi);
          continue;
        }
        // a set escape next to `-`: the dash is literal
        this.pos = save;
      }
      parts.push(typeof from === 'string' ? ((code) => (c: number) => c === code)(from.charCodeAt(0)) : from);
    }
    this.pos++; // ']'
    const inSet = (c: number) => parts.some((p) => p(c));
    return negate ? (c) => !inSet(c) : inSet;
  }

  private classAtom(): CharTest | string {
    const ch = this.src[this.pos++];
    if (ch !== '\\') return ch;
    if (this.src[this.pos] === 'b') {
      this.pos++;
      return '\b';
    }
    return this.classEscape();
  }
}

/** A short string matching the node: one repetition where the regex allows any count. */
function generate(node: Node, captures: Map<number | string, string>): string {
  switch (node.t) {
    case 'text':
      return node.text;
    case 'set':
      return pick(node.test);
    case 'seq':
      return node.items.map((item) => generate(item, captures)).join('');
    case 'alt': {
      // the first alternative that gives something (`[a-z]+|\-` → a letter, not a dash)
      let first: string | undefined;
      for (const alt of node.alts) {
        const text = generate(alt, captures);
        first ??= text;
        if (text !== '' && text !== '-') return text;
      }
      return first!;
    }
    case 'group': {
      if (node.look) return '';
      const text = generate(node.body, captures);
      if (node.index !== null) captures.set(node.index, text);
      if (node.name !== null) captures.set(node.name, text);
      return text;
    }
    case 'rep': {
      const count = node.max === 0 ? 0 : Math.max(node.min, 1);
      let out = '';
      for (let k = 0; k < count; k++) out += generate(node.node, captures);
      return out;
    }
    case 'ref':
      return captures.get(node.index ?? node.name!) ?? '';
  }
}

/** A short string that the regex (JS syntax, no flags) matches entirely. */
export function sampleForRegex(regex: string): string {
  return generate(new RegexReader(regex).read(), new Map());
}

/** A line that `format` parses, with a value for every property. */
export function sampleLine(format: CompiledFormat): string {
  let line = '';
  for (const token of tokenizeFormat(format.family, format.literal)) {
    if (token.kind === 'text') line += token.text;
    else if (token.kind === 'directive') line += token.directive.sample;
    else line += sampleForRegex(token.regex ?? DEFAULT_CUSTOM_PATTERN);
  }
  return line;
}
