/**
 * Literal pre-checks: a text every match of a regular expression must contain, found from the
 * pattern's source, so that a rule can be rejected with `startsWith`/`includes` before the regex
 * runs and before a scope is made for it. Only sure cases give a literal: anything unusual
 * (alternation at the top level, flags i/m, escapes other than punctuation) gives none.
 */
export interface RequiredLiteral {
  readonly text: string;
  /** the literal starts the pattern (`^/doi/…`): the text must start with it */
  readonly anchored: boolean;
}

const PUNCTUATION = new Set('^$\\.*+?()[]{}|/-:,=!<>#&~@%\'"`;_ '.split(''));
const QUANTIFIER = new Set(['?', '*', '{']);

/** A literal run that every match contains (at least `minLength` characters), or undefined. */
export function requiredLiteral(source: string, flags = '', minLength = 2): RequiredLiteral | undefined {
  if (/[imv]/.test(flags)) return undefined;
  let best: RequiredLiteral | undefined;
  let run = '';
  let runStart = -1;
  let depth = 0;
  let i = 0;
  const anchoredStart = source.startsWith('^');
  if (anchoredStart) i = 1;
  // A prefix is the best pre-check (startsWith); otherwise the longest run (includes).
  const close = () => {
    const anchored = anchoredStart && runStart === 1;
    if (run.length >= minLength && (!best || (!best.anchored && (anchored || run.length > best.text.length)))) {
      best = { text: run, anchored };
    }
    run = '';
    runStart = -1;
  };
  while (i < source.length) {
    const ch = source[i];
    let literal: string | undefined;
    let width = 1;
    if (ch === '\\') {
      const next = source[i + 1];
      if (next === undefined) return undefined;
      if (PUNCTUATION.has(next)) literal = next;
      width = 2;
    } else if (ch === '[') {
      // a character class: skip it whole (escapes inside included)
      let j = i + 1;
      if (source[j] === '^') j++;
      if (source[j] === ']') j++;
      while (j < source.length && source[j] !== ']') j += source[j] === '\\' ? 2 : 1;
      if (j >= source.length) return undefined;
      width = j + 1 - i;
    } else if (ch === '{') {
      // a quantifier {n}, {n,}, {n,m}: its digits are no literal text
      const m = /^\{[0-9]*(?:,[0-9]*)?\}/.exec(source.slice(i));
      if (!m) return undefined;
      width = m[0].length;
    } else if (ch === '(') {
      depth++;
    } else if (ch === ')') {
      depth--;
      if (depth < 0) return undefined;
    } else if (ch === '|') {
      if (depth === 0) return undefined;
    } else if (depth === 0 && !'^$.*+?{}'.includes(ch)) {
      literal = ch;
    }
    const after = source[i + width];
    if (literal !== undefined && depth === 0) {
      if (QUANTIFIER.has(after)) {
        close(); // `ab?`: the b is optional, the run ends before it
      } else {
        if (runStart < 0) runStart = i;
        run += literal;
        if (after === '+') close(); // `ab+c`: "ab" is sure, what follows may repeat
      }
    } else {
      close();
    }
    i += width;
  }
  close();
  return depth === 0 ? best : undefined;
}

/** A quick test that is false only when the pattern surely cannot match the text. */
export function literalPrecheck(literal: RequiredLiteral): (text: string) => boolean {
  const { text, anchored } = literal;
  return anchored ? (s) => s.startsWith(text) : (s) => s.includes(text);
}
