import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import type { AccessEvent } from '../../../src/pipeline/event.js';
import { createJsonSerializer, jsonFrame } from '../../../src/pipeline/writers/json.js';
import { SHARED_DIR } from '../../../src/paths.js';
import { body, failedBody } from './frame-helper.js';

const sample: AccessEvent = {
  host: '247.63.228.176',
  login: 'THEODORE "T"',
  datetime: '2012-11-30T00:14:18+01:00',
  url: 'http://www.sciencedirect.com:80/science?a=1;b="2"\\',
  status: '200',
  size: undefined,
  domain: 'www.sciencedirect.com',
  timestamp: 1354230858,
  title: 'line\nbreak\ttab\u0001é漢😀',
};

t.test('one event: pretty-printed, 2 spaces, no absent field', async (t) => {
  const text = createJsonSerializer().serialize(sample);
  t.equal(
    text,
    '{\n' +
      '  "host": "247.63.228.176",\n' +
      '  "login": "THEODORE \\"T\\"",\n' +
      '  "datetime": "2012-11-30T00:14:18+01:00",\n' +
      '  "url": "http://www.sciencedirect.com:80/science?a=1;b=\\"2\\"\\\\",\n' +
      '  "status": "200",\n' +
      '  "domain": "www.sciencedirect.com",\n' +
      '  "timestamp": 1354230858,\n' +
      '  "title": "line\\nbreak\\ttab\\u0001é漢😀"\n' +
      '}',
  );
  t.equal(text, JSON.stringify(sample, null, 2), 'what JSON.stringify gives');
  t.same(JSON.parse(text), JSON.parse(JSON.stringify(sample)));
});

t.test('edge values', async (t) => {
  const s = createJsonSerializer();
  t.equal(s.serialize({}), '{}');
  t.equal(s.serialize({ gone: undefined }), '{}');
  t.equal(s.serialize({ a: 0, b: -1.5, c: NaN, d: Infinity, e: '' }), '{\n  "a": 0,\n  "b": -1.5,\n  "c": null,\n  "d": null,\n  "e": ""\n}');
  // values outside the event type are written as JSON.stringify would write them
  const odd = { n: null, b: true, coords: [48.8, 2.3], o: { k: 'v' }, f: () => 1 } as unknown as AccessEvent;
  const { f, ...expected } = odd as Record<string, unknown>;
  t.equal(s.serialize(odd), JSON.stringify(expected, null, 2));
  t.equal(s.serialize({ 'we"ird\nkey': 'v' }), '{\n  "we\\"ird\\nkey": "v"\n}');
  // fields starting with `_` are data (a log's `%{_session}`, a CSV's `_line` column)
  t.equal(s.serialize({ a: 'x', _line: 'y', b: 'z', _session: 'w' }), '{\n  "a": "x",\n  "_line": "y",\n  "b": "z",\n  "_session": "w"\n}');
  // an own `__proto__` field (a re-injected CSV column) is written, nothing inherited is
  const proto: AccessEvent = { a: 'x' };
  Object.defineProperty(proto, '__proto__', { value: 'P', enumerable: true, writable: true, configurable: true });
  t.equal(s.serialize(proto), '{\n  "a": "x",\n  "__proto__": "P"\n}');
});

t.test('framed stream: head, separators, tail, parseable', async (t) => {
  const frame = jsonFrame();
  t.equal(frame.head, '[');
  t.equal(frame.separator, ',');
  t.equal(frame.tail, ']');
  const events: AccessEvent[] = [{ a: '1' }, { b: 2 }, {}, sample];
  const out = body('json', [], events);
  t.ok(out.startsWith('[{\n  "a": "1"\n},{\n  "b": 2\n},{},{\n  "host"'), 'objects separated by , without newline');
  t.ok(out.endsWith('\n}]'));
  const parsed = JSON.parse(out);
  t.equal(parsed.length, 4);
  t.same(parsed[1], { b: 2 });
  t.equal(body('json', [], []), '', 'no event: empty body, not []');
});

t.test('error marker makes the document invalid JSON', async (t) => {
  const out = failedBody('json', [], [{ a: '1' }, { b: '2' }], 5002, 'A parsing worker failed');
  t.equal(out, '[{\n  "a": "1"\n},{\n  "b": "2"\n}\n#logsift-error 5002 A parsing worker failed\n');
  t.throws(() => JSON.parse(out));
  t.notOk(out.includes(']'), 'no closing bracket');
  t.equal(out.split('\n').at(-2), '#logsift-error 5002 A parsing worker failed');
  // even a single event
  t.throws(() => JSON.parse(failedBody('json', [], [{}], 4039, 'closed')));
});

const DATASETS = join(SHARED_DIR, 'datasets');
const noShared = existsSync(DATASETS) ? false : `no ${DATASETS} (the shared folder is not beside the checkout)`;

t.test('reference JSON results are reproduced byte for byte', { skip: noShared }, async (t) => {
  const files = readdirSync(DATASETS).filter((f) => /^sd\..*\.result\.json$/.test(f));
  t.ok(files.length > 0);
  for (const file of files) {
    const text = readFileSync(join(DATASETS, file), 'utf8');
    const events = JSON.parse(text) as AccessEvent[];
    t.equal(body('json', [], events), text, file);
  }
});

t.test('any event: the text JSON.stringify gives without the internal fields', async (t) => {
  const { default: fc } = await import('fast-check');
  const key = fc.string({ unit: 'binary', maxLength: 8 }).filter((k) => k !== '__proto__');
  const value = fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), fc.double(), fc.integer(), fc.constant(undefined));
  const pretty = createJsonSerializer();
  const compact = (await import('../../../src/pipeline/writers/jsonstream.js')).createJsonStreamSerializer();
  fc.assert(
    fc.property(fc.dictionary(key, value), (ec) => {
      const visible: Record<string, unknown> = {};
      for (const k in ec) if (!k.startsWith('_')) visible[k] = ec[k];
      return pretty.serialize(ec) === JSON.stringify(visible, null, 2) && compact.serialize(ec) === JSON.stringify(visible);
    }),
    { numRuns: 2000 },
  );
  t.pass('2000 random events');
});
