import t from 'tap';
import { eventShape, eventShapeFor, LINE_EVENT_FIELDS, STAGE_EVENT_FIELDS } from '../../src/pipeline/event-shape.js';

t.test('a shaped event: every name an own key, undefined, in order, once; a new object each time', async (t) => {
  const make = eventShape(['host', 'url', 'host', 'geoip-country']);
  const a = make();
  const b = make();
  t.not(a, b);
  t.same(Object.keys(a), ['host', 'url', 'geoip-country']);
  t.ok(Object.values(a).every((v) => v === undefined));
  a.url = 'http://x.org/';
  t.equal(b.url, undefined, 'events share no state');
  t.equal(JSON.stringify(make()), '{}', 'JSON leaves the unset fields out');
});

t.test('names are data: quotes, backslashes and line separators in a name run no code', async (t) => {
  const odd = `"]; globalThis.pwned = 1; //\u2028'\\`;
  const ec = eventShape([odd, '__proto__', 'constructor'])();
  t.same(Object.keys(ec), [odd, 'constructor'], '__proto__ left out, as a store under it makes no field');
  t.equal((globalThis as { pwned?: number }).pwned, undefined);
  ec.__proto__ = 'x';
  t.same(Object.keys(ec), [odd, 'constructor']);
});

t.test('shaped only where the order of keys cannot show: CSV and TSV, logsift\'s own steps', async (t) => {
  const job = { builtinOnly: true, formatFields: ['host', 'login', 'url'], provenance: ['ezpaarse_version'] };
  const csv = eventShapeFor({ ...job, output: 'csv' });
  t.ok(csv);
  t.same(Object.keys(csv!()), [...new Set(['host', 'login', 'url', ...LINE_EVENT_FIELDS, 'ezpaarse_version', ...STAGE_EVENT_FIELDS])]);
  t.ok(eventShapeFor({ ...job, output: 'tsv' }));
  for (const output of ['json', 'jsonstream', 'log'] as const) t.equal(eventShapeFor({ ...job, output }), undefined, `${output}: plain events`);
  t.equal(eventShapeFor({ ...job, output: 'csv', builtinOnly: false }), undefined, 'a middleware from outside may list the keys');
});
