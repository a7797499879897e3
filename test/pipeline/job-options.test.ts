import t from 'tap';
import { readJobOptions, type RequestHeaders } from '../../src/pipeline/job-options.js';
import { isStatusError } from '../../src/status-codes.js';

const ctx = { platforms: new Set(['sd', 'wiley']) };
const read = (headers: RequestHeaders) => readJobOptions(headers, ctx);

/** The status code and message of a refusal, or undefined when the headers are accepted. */
function refusal(headers: RequestHeaders): { code: number; message: string } | undefined {
  try {
    read(headers);
    return undefined;
  } catch (err) {
    if (!isStatusError(err)) throw err;
    return { code: err.code, message: err.message };
  }
}

t.test('yes/no headers read true and false in any case, and the usual other words', async (t) => {
  const cases: Array<[string, (o: ReturnType<typeof read>) => boolean, boolean]> = [
    ['ezpaarse-enrich', (o) => o.enrich, true],
    ['allow-domain-wildcards', (o) => o.allowWildcards, false],
    ['clean-only', (o) => o.cleanOnly, false],
    ['ezpaarse-filter-redirects', (o) => o.status.mode === 'default' && o.status.redirects, true],
    ['double-click-removal', (o) => o.doubleClick.enabled, true],
  ];
  for (const [name, get, fallback] of cases) {
    t.equal(get(read({})), fallback, `${name} absent: ${fallback}`);
    t.equal(get(read({ [name]: '' })), fallback, `${name} empty: ${fallback}`);
    for (const v of ['true', 'True', 'TRUE', ' yes ', '1', 'on']) t.equal(get(read({ [name]: v })), true, `${name}: ${v}`);
    for (const v of ['false', 'False', 'no', '0', 'OFF']) t.equal(get(read({ [name]: v })), false, `${name}: ${v}`);
  }
});

t.test('a yes/no header with another value is refused, naming it and what it takes', async (t) => {
  for (const [name, label, code] of [
    ['ezpaarse-enrich', 'ezPAARSE-Enrich', 4032],
    ['allow-domain-wildcards', 'Allow-Domain-Wildcards', 4032],
    ['clean-only', 'Clean-Only', 4032],
    ['ezpaarse-filter-redirects', 'ezPAARSE-Filter-Redirects', 4032],
    ['double-click-removal', 'Double-Click-Removal', 4031],
  ] as const) {
    for (const v of ['maybe', 'false, false', 'disabled']) {
      const r = refusal({ [name]: v });
      t.equal(r?.code, code, `${name}: ${v}`);
      t.match(r?.message, `${label}: expected true or false (also 1, yes, on, 0, no, off), got ${JSON.stringify(v)}`);
    }
  }
});

t.test('a single-valued header sent twice: the same value counts once, different values are refused', async (t) => {
  t.equal(read({ 'force-parser': ['sd', 'sd'] }).forceParser, 'sd');
  t.equal(read({ 'ezpaarse-enrich': ['false', 'false'] }).enrich, false);
  t.equal(read({ 'allow-domain-wildcards': ['true', 'true'] }).allowWildcards, true);
  t.equal(read({ 'double-click-removal': ['false', 'false'] }).doubleClick.enabled, false);
  t.equal(read({ 'double-click-html': ['20', '20'] }).doubleClick.windows.html, 20);
  t.equal(read({ 'force-parser': ['sd', 'sd'] }).headers['force-parser'], 'sd', 'recorded once');
  const r = refusal({ 'force-parser': ['sd', 'wiley'] });
  t.equal(r?.code, 4032);
  t.match(r?.message, 'Force-Parser: given 2 times with different values ("sd", "wiley"): send it once');
  t.match(refusal({ 'double-click-html': ['20', '30'] })?.message, /Double-Click-Html: given 2 times with different values/);
  t.match(refusal({ 'ezpaarse-enrich': ['true', 'false'] })?.message, /ezPAARSE-Enrich: given 2 times/);
});

t.test('a list header sent twice is both lists', async (t) => {
  t.same(read({ 'filter-platforms': ['sd', 'wiley'] }).filterPlatforms, ['sd', 'wiley']);
  t.same([...read({ 'reject-files': ['robots-ecs', 'unknown-formats'] }).rejectFiles].sort(), ['robots-ecs', 'unknown-formats']);
  t.same(read({ 'output-fields': ['+a', '+b'] }).outputFields, read({ 'output-fields': '+a, +b' }).outputFields);
});

t.test('Crypted-Fields: a name with other capitals than the field\'s is refused, naming the field meant', async (t) => {
  t.match(refusal({ 'crypted-fields': 'Host,Login' }), { code: 4032, message: /"Host" is not a field.*did you mean "host"/ });
  t.match(refusal({ 'crypted-fields': 'host,DOI' }), { code: 4032, message: /did you mean "doi"/ });
  t.same(read({ 'crypted-fields': 'host,Referer', 'log-format-ezproxy': '%h %u %t "%r" %{Referer}<[^ ]+>' }).crypt?.fields, ['host', 'Referer'],
    'a name the log format defines with its capitals');
  t.same(read({ 'crypted-fields': 'host,my-own' }).crypt?.fields, ['host', 'my-own'], 'a name of no known field: a field a middleware may add');
  t.equal(read({ 'crypted-fields': 'none,' }).crypt, undefined, '"none," turns crypting off');
});

t.test('of several bad headers, the one the reference checks first is named (pipeline.md 1.4)', async (t) => {
  t.equal(refusal({ 'ezpaarse-job-notifications': 'sms<1>', 'request-charset': 'klingon' })?.code, 4021, 'notifications before charsets');
  t.equal(refusal({ accept: 'image/png', 'output-fields': 'foo' })?.code, 4013, 'Output-Fields before the writer');
  t.equal(refusal({ 'response-encoding': 'br', 'log-format-ezproxy': '%h %Q' })?.code, 4027, 'the log format before the writer');
  t.equal(refusal({ 'response-charset': 'klingon', 'log-format-ezproxy': '%h %Q' })?.code, 4016, 'charsets before the log format');
});

t.test('headers asking for what the service does not do are said in the warnings', async (t) => {
  t.same(read({}).warnings, []);
  t.same(read({ 'crossref-enrich': 'false', 'hal-enrich': 'no' }).warnings, [], 'turned off: nothing to say');
  const w = read({ 'crossref-enrich': 'true', 'istex-enrich': 'TRUE', 'relative-domain': 'hal.science' }).warnings;
  t.match(w, [/^Crossref-Enrich: "true" asks for the Crossref enrichment.*ignored$/, /^Istex-Enrich: "TRUE"/, /^Relative-Domain: not read.*Force-Parser/]);
});

t.test('Max-Parse-Attempts is a whole number from 1 to 100000, 10 by default', async (t) => {
  t.equal(read({}).maxParseAttempts, 10);
  t.equal(read({ 'max-parse-attempts': ' ' }).maxParseAttempts, 10);
  t.equal(read({ 'max-parse-attempts': '1' }).maxParseAttempts, 1);
  t.equal(read({ 'max-parse-attempts': '100000' }).maxParseAttempts, 100000);
  for (const v of ['x', '0', '-3', '2.5', '1e3', '100001', '10abc']) {
    const r = refusal({ 'max-parse-attempts': v });
    t.equal(r?.code, 4032, v);
    t.match(r?.message, `Max-Parse-Attempts: expected a whole number from 1 to 100000, got ${JSON.stringify(v)}`);
  }
});
