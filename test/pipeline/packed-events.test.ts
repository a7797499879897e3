import t from 'tap';
import { EventPacker, transferables, unpackEvents } from '../../src/pipeline/packed-events.js';
import type { EventRecord } from '../../src/pipeline/job-spec.js';

const text = (e: EventRecord) => Buffer.from(e.text as Uint8Array).toString('utf8');

t.test('every field comes back as it went in', async (t) => {
  const packer = new EventPacker();
  const input: Array<EventRecord & { text: string }> = [
    { ts: 1700000000, text: 'a;b;c', denied: false, platform: 'wiley', rtype: 'ARTICLE', mime: 'PDF', dupKey: 'k1', dupWindow: 30, campus: true },
    { ts: 1700000001.5, text: 'é;ü;中文;😀', denied: true, platform: 'wiley', campus: false, pkbMiss: true },
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
      raw: want.raw, json: want.json, dupKey: want.dupKey, dupWindow: want.dupWindow, campus: want.campus, pkbMiss: want.pkbMiss ?? false,
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

t.test('one packer for batch after batch: each pack holds its own batch, clear drops a failed one', async (t) => {
  const packer = new EventPacker();
  const batch = (tag: string, n: number) => {
    // past the packer's first sizes: 1,024 events, 64 KB of text, 16 KB of keys
    for (let i = 0; i < n; i++) {
      packer.push({ ts: i, text: `${tag}${i};${'é'.repeat(40)}`, denied: i % 3 === 0, platform: `p${i % 5}`, dupKey: i % 2 ? `${tag}\u0001k${i}` : undefined, dupWindow: i % 2 ? 30 : undefined });
    }
    return unpackEvents(packer.pack());
  };
  const first = batch('a', 3000);
  t.equal(first.length, 3000);
  t.equal(text(first[2999]), `a2999;${'é'.repeat(40)}`);
  t.same([first[0].dupKey, first[1].dupKey, first[2999].dupKey], [undefined, 'a\u0001k1', 'a\u0001k2999']);
  t.same([first[0].platform, first[4].platform, first[5].platform], ['p0', 'p4', 'p0']);
  packer.push({ ts: 1, text: 'left over', denied: false, dupKey: 'stale' });
  packer.clear();
  const second = batch('b', 2);
  t.same(second.map((e) => [text(e), e.ts, e.denied, e.platform, e.dupKey, e.dupWindow]), [
    [`b0;${'é'.repeat(40)}`, 0, true, 'p0', undefined, undefined],
    [`b1;${'é'.repeat(40)}`, 1, false, 'p1', 'b\u0001k1', 30],
  ], 'only the second batch, its labels numbered afresh');
  t.equal(first[2999].dupKey, 'a\u0001k2999', 'the first batch is unchanged by the second');
  t.equal(text(first[1]), `a1;${'é'.repeat(40)}`);
});
