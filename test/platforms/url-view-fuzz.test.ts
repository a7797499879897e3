import t from 'tap';
import fc from 'fast-check';
import { parse as legacyParse } from 'node:url';
import { parse as parseQuery } from 'node:querystring';
import { urlView } from '../../src/platforms/url-view.js';

/**
 * Property test of the URL view against Node's legacy parser, the view the platforms' rules were
 * written for: for any URL, the view is undefined exactly when the URL has a malformed escape or the legacy parser
 * refuses it (it throws on some hosts, e.g. `http://[::1]_`: found by this test),
 * and otherwise gives the legacy parser's parts of the decoded URL. The number of cases is printed.
 */
const RUNS = 20_000;

const escape = fc.oneof(
  fc.integer({ min: 0, max: 255 }).map((b) => '%' + b.toString(16).padStart(2, '0')),
  fc.constantFrom('%', '%G1', '%2', '%e9', '%C3%A9', '%ED%A0%80', '%25', '%2F', '%3F', '%23', '%26', '%3D', '%2B'),
);
const piece = fc.oneof(
  { weight: 4, arbitrary: fc.stringMatching(/^[a-zA-Z0-9._~-]{1,6}$/) },
  { weight: 2, arbitrary: escape },
  { weight: 1, arbitrary: fc.constantFrom('/', '?', '#', '&', '=', '+', ';', ':', '@', ' ', '\\', '..', '//', '[', ']', 'é', '\u2028', '\ud800', '\t') },
);
const tail = fc.array(piece, { maxLength: 12 }).map((p) => p.join(''));
const host = fc.oneof(fc.domain(), fc.ipV4(), fc.constantFrom('[::1]', 'EXAMPLE.org', 'a_b.example', 'xn--caf-dma.fr', ''));
const url = fc.oneof(
  { weight: 5, arbitrary: fc.tuple(fc.constantFrom('http://', 'https://', 'HTTP://', '//', 'ftp://', ''), host, fc.constantFrom('', ':80', ':8443', ':'), tail).map(([s, h, p, r]) => s + h + p + r) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
);

t.test('the URL view gives the legacy parser\'s parts of the decoded URL', async (t) => {
  let viewed = 0;
  let malformed = 0;
  fc.assert(fc.property(url, (raw) => {
    let decoded: string | undefined;
    let legacy: ReturnType<typeof legacyParse> | undefined;
    try {
      decoded = decodeURIComponent(raw);
      legacy = legacyParse(decoded, false);
    } catch {
      legacy = undefined;
    }
    const view = urlView(raw);
    if (decoded === undefined || legacy === undefined) {
      if (view !== undefined) throw new Error(`a view of a malformed URL: ${raw}`);
      malformed++;
      return;
    }
    if (!view) throw new Error(`no view of ${raw}`);
    viewed++;
    const expected = {
      url: decoded,
      protocol: legacy.protocol ?? '',
      hostname: legacy.hostname ?? '',
      port: legacy.port ?? '',
      pathname: legacy.pathname ?? '',
      search: legacy.search ? legacy.search.slice(1) : '',
      hash: legacy.hash ? legacy.hash.slice(1) : '',
      query: { ...parseQuery(typeof legacy.query === 'string' ? legacy.query : '') },
    };
    const actual = { url: view.url, protocol: view.protocol, hostname: view.hostname, port: view.port, pathname: view.pathname, search: view.search, hash: view.hash, query: { ...view.query } };
    if (JSON.stringify(actual) !== JSON.stringify(expected)) throw new Error(`${raw}: ${JSON.stringify(actual)} != ${JSON.stringify(expected)}`);
  }), { numRuns: RUNS, seed: 5 });
  t.comment(`fuzz: URL view, ${RUNS} URLs (${viewed} viewed, ${malformed} malformed refused)`);
});
