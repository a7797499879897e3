import t from 'tap';
import fc from 'fast-check';
import { compileFormat } from '../../../src/pipeline/formats/compile.js';
import { parseLine } from '../../../src/pipeline/formats/line-parser.js';
import { sampleLine } from '../../../src/pipeline/formats/sample-line.js';
import { FormatError, type ProxyFamily } from '../../../src/pipeline/formats/types.js';

/**
 * Property tests of the format compiler: whatever the format string, compiling it either gives a
 * format or throws a FormatError (never another exception), and a compiled format matches the
 * sample line written for it. The number of cases run is printed.
 */
const RUNS = 3000;

const DIRECTIVES: Record<Exclude<ProxyFamily, 'bibliopam'>, string[]> = {
  ezproxy: ['%h', '%u', '%l', '%b', '%U', '%m', '%r', '%t', '%s', '%{user-agent}i', '%{Referer}i'],
  apache: ['%h', '%l', '%u', '%b', '%U', '%r', '%t', '%>s', '%s', '%a', '%A', '%m', '%H', '%q', '%v', '%p', '%D', '%T', '%B', '%O', '%I', '%{User-Agent}i'],
  squid: ['%ts', '%tu', '%tr', '%tl', '%>a', '%<a', '%<A', '%Ss', '%lp', '%>Hs', '%<st', '%rm', '%rv', '%ru', '%un', '%Sh', '%mt', '%ui'],
};

/** Small regexes of the syntax the sample writer reads: classes, escapes, groups, alternation, quantifiers. */
const regexAtom = fc.constantFrom('a', 'Z', '7', '\\d', '\\w', '\\S', '[a-z]', '[^ ]', '[0-9A-F]', '\\.', '-', '_', '(?:x|yz)', '(q)', '[\\]x]');
const quantifier = fc.constantFrom('', '', '+', '*', '?', '{2}', '{1,3}', '+?');
const regex = fc.array(fc.tuple(regexAtom, quantifier).map(([a, q]) => a + q), { minLength: 1, maxLength: 5 }).map((parts) => parts.join(''))
  .filter((r) => r !== '' && !/^(?:.\*|\?)*$/.test(r));

const fieldName = fc.stringMatching(/^[a-z][a-z0-9_-]{0,8}$/).filter((n) => n !== '__proto__');
const separator = fc.constantFrom(' ', ' - ', ' "', '" ', ' [', '] ', ';', '|', ' :: ', '\t');

function token(family: Exclude<ProxyFamily, 'bibliopam'>): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...DIRECTIVES[family]) },
    { weight: 2, arbitrary: fieldName.map((n) => `%{${n}}`) },
    { weight: 3, arbitrary: fc.tuple(fieldName, regex).map(([n, r]) => `%{${n}}<${r}>`) },
    { weight: 1, arbitrary: regex.map((r) => `%<${r}>`) },
  );
}

t.test('any format string: a compiled format or a FormatError, nothing else', async (t) => {
  const alphabet = fc.constantFrom('%', '{', '}', '<', '>', '(', ')', '[', ']', '\\', 'h', 'u', 't', 'r', 's', 'i', '>', ' ', '"', '?', '*', '+', '|', 'a', '1', '-', '^', '$', 'k');
  const anyFormat = fc.oneof(fc.string({ maxLength: 40 }), fc.array(alphabet, { maxLength: 40 }).map((c) => c.join('')));
  const family = fc.constantFrom<ProxyFamily>('ezproxy', 'apache', 'squid', 'bibliopam');
  let compiled = 0;
  let refused = 0;
  fc.assert(fc.property(family, anyFormat, (fam, literal) => {
    try {
      const format = compileFormat(fam, literal);
      compiled++;
      // matching anything must not throw either
      parseLine(format, literal);
    } catch (err) {
      if (!(err instanceof FormatError)) throw err;
      refused++;
    }
  }), { numRuns: RUNS, seed: 1 });
  t.equal(compiled + refused, RUNS);
  t.comment(`fuzz: format compiler, ${RUNS} random format strings (${compiled} compiled, ${refused} refused with FormatError)`);
});

t.test('formats made of directives, custom fields and regexes match their sample lines', async (t) => {
  let cases = 0;
  for (const family of ['ezproxy', 'apache', 'squid'] as const) {
    const format = fc.tuple(fc.array(fc.tuple(token(family), separator), { minLength: 1, maxLength: 7 }), fc.boolean())
      .map(([parts, dup]) => {
        // custom names must be unique: the later duplicates get a suffix
        const seen = new Map<string, number>();
        return parts.map(([tok, sep]) => tok.replace(/^%\{([a-z][a-z0-9_-]*)\}(?=<|$)/, (_m, n: string) => {
          const k = (seen.get(n) ?? 0) + 1;
          seen.set(n, k);
          return `%{${k > 1 || dup ? `${n}${k}` : n}}`;
        }) + sep).join('');
      });
    fc.assert(fc.property(format, (literal) => {
      cases++;
      let compiled;
      try {
        compiled = compileFormat(family, literal);
      } catch (err) {
        if (err instanceof FormatError) return; // e.g. a group name used twice
        throw err;
      }
      const line = sampleLine(compiled);
      const fields = parseLine(compiled, line);
      if (!fields) throw new Error(`the sample line ${JSON.stringify(line)} does not match ${compiled.source}`);
    }), { numRuns: RUNS, seed: 2 });
  }
  t.pass('every sample line matched');
  t.comment(`fuzz: format compiler, ${cases} generated formats matched against their sample lines`);
});
