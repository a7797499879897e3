import t from 'tap';
import type { AccessEvent } from '../../../src/pipeline/event.js';
import { createJsonStreamSerializer, jsonStreamFrame } from '../../../src/pipeline/writers/jsonstream.js';
import { body, failedBody } from './frame-helper.js';

t.test('one compact object per event', async (t) => {
  const s = createJsonStreamSerializer();
  const ec: AccessEvent = { host: 'h', status: '200', size: undefined, timestamp: 1354230858, title: 'a\nb "c"' };
  t.equal(s.serialize(ec), '{"host":"h","status":"200","timestamp":1354230858,"title":"a\\nb \\"c\\""}');
  t.equal(s.serialize({}), '{}');
  t.equal(s.serialize({ _x: 'data' }), '{"_x":"data"}', 'a field starting with _ is data');
  t.equal(s.serialize(ec), JSON.stringify(ec));
});

t.test('frame: lines separated by \\n, no brackets, no trailing newline', async (t) => {
  const frame = jsonStreamFrame();
  t.equal(frame.head, '');
  t.equal(frame.separator, '\n');
  t.equal(frame.tail, '');
  const events: AccessEvent[] = [{ a: '1' }, { b: 2 }, { c: 'x\ny' }];
  const out = body('jsonstream', [], events);
  t.equal(out, '{"a":"1"}\n{"b":2}\n{"c":"x\\ny"}');
  t.same(out.split('\n').map((line) => JSON.parse(line)), [{ a: '1' }, { b: 2 }, { c: 'x\ny' }]);
  t.equal(body('jsonstream', [], []), '');
});

t.test('error marker: a last {"error":…} line', async (t) => {
  const out = failedBody('jsonstream', [], [{ a: '1' }, { b: '2' }], 5002, 'worker "3"\nfailed');
  const lines = out.split('\n');
  t.equal(lines.length, 3);
  t.same(JSON.parse(lines[0]), { a: '1' });
  const last = JSON.parse(lines[2]);
  t.same(last, { error: { code: 5002, message: 'worker "3"\nfailed' } });
  t.equal(lines[2], '{"error":{"code":5002,"message":"worker \\"3\\"\\nfailed"}}');
  // an event cannot look like the marker: its error field would be a string
  t.equal(createJsonStreamSerializer().serialize({ error: '{"code":1}' }), '{"error":"{\\"code\\":1}"}');
});
