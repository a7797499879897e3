import t from 'tap';
import { EventPacker, transferables, unpackEvents } from '../../src/pipeline/packed-events.js';
import type { EventRecord } from '../../src/pipeline/job-spec.js';

const text = (e: EventRecord) => Buffer.from(e.text as Uint8Array).toString('utf8');

t.test('every field comes back as it went in', async (t) => {
  const packer = new EventPacker();
  const input: Array<EventRecord & { text: string }> = [
    { ts: 1700000000, text: 'a;b;c', denied: false, platform: 'wiley', rtype: 'ARTICLE', mime: 'PDF', dupKey: 'k1', dupWindow: 30, campus: true },
    { ts: 1700000001.5, text: 'é;ü;中文;😀', denied: true, platform: 'wiley', campus: false },
    { ts: 1700000002, text: '', denied: false, raw: 'the line', json: '{"a":1}', dupWindow: 0 },
  ];
  for (const e of input) packer.push(e);
  t.equal(packer.count, 3);
  const packed = packer.pack();
  t.same(packed.labels, ['wiley', 'ARTICLE', 'PDF'], 'labels stored once a batch');
  const out = unpackEvents(packed);
  t.equal(out.length, 3);
  out.forEach((e, i) => {
    const want = input[i];
    t.equal(text(e), want.text, `text ${i}`);
    t.same({ ...e, text: undefined }, {
      ts: want.ts, text: undefined, denied: want.denied, platform: want.platform, rtype: want.rtype, mime: want.mime,
      raw: want.raw, json: want.json, dupKey: want.dupKey, dupWindow: want.dupWindow, campus: want.campus,
    }, `fields ${i}`);
  });
});

t.test('a lone surrogate is written as the string would be, even before its other half', async (t) => {
  const packer = new EventPacker();
  packer.push({ ts: 0, text: 'x\ud83d', denied: false });
  packer.push({ ts: 0, text: '\ude00y', denied: false });
  const out = unpackEvents(packer.pack());
  t.same(out.map((e) => Buffer.from(e.text as Uint8Array)), [Buffer.from('x\ud83d'), Buffer.from('\ude00y')]);
});

t.test('no events; each buffer its own, so that all can be transferred', async (t) => {
  const empty = new EventPacker().pack();
  t.equal(empty.count, 0);
  t.same(unpackEvents(empty), []);
  const packer = new EventPacker();
  packer.push({ ts: 1, text: 'abc', denied: false });
  const buffers = transferables(packer.pack());
  t.equal(new Set(buffers).size, buffers.length);
  const { port1, port2 } = new MessageChannel();
  port1.postMessage(buffers, buffers);
  t.ok(buffers.every((b) => b.byteLength === 0), 'detached once transferred');
  port1.close();
  port2.close();
});
