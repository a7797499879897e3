import t from 'tap';
import { DoubleClickStage, doubleClickKey, doubleClickReport, readDoubleClickOptions } from '../../src/pipeline/double-clicks.js';
import type { EventRecord } from '../../src/pipeline/job-spec.js';
import type { SequentialSink } from '../../src/pipeline/sequential.js';

const defaults = readDoubleClickOptions({});

t.test('headers', async (t) => {
  t.match(defaults, { enabled: true, mode: 'ezpaarse', strategy: 'CLI', fields: { C: 'session', L: 'login', I: 'host' }, windows: { html: 10, pdf: 30, misc: 30 }, mixed: 0 });
  const o = readDoubleClickOptions({ 'double-click-strategy': 'lci', 'double-click-epub': '60', 'double-click-l-field': 'user', 'double-click-mixed': '0' });
  t.match(o, { strategy: 'LCI', fields: { L: 'user' }, windows: { epub: 60 } });
  t.equal(readDoubleClickOptions({ 'double-click-removal': 'FALSE' }).enabled, false);
  t.same(readDoubleClickOptions({ 'double-click-mode': 'counter5', 'double-click-html': '5' }).windows, { misc: 30 }, 'COUNTER 5: one 30 s window');
  for (const bad of [{ 'double-click-strategy': 'CLIX' }, { 'double-click-strategy': 'LL' }, { 'double-click-html': '-1' }, { 'double-click-pdf': '' }, { 'double-click-mixed': 'x' }, { 'double-click-mode': 'x' }, { 'double-click-x.y': '3' },
    { 'double-click-html': '99999999999999999999' }, { 'double-click-mixed': '3601' }]) {
    t.throws(() => readDoubleClickOptions(bad), { code: 4031 }, JSON.stringify(bad));
  }
  t.equal(readDoubleClickOptions({ 'double-click-pdf': '3600' }).windows.pdf, 3600, 'an hour at most');
  t.same(doubleClickReport(readDoubleClickOptions({ 'double-click-removal': 'false' })), { activated: false });
  t.match(doubleClickReport(defaults), { activated: true, strategy: 'CLI', 'window-html': 10 });
});

t.test('keys: user field by priority, window class by mime, no key without unitid/rtype/user', async (t) => {
  const ec = { platform: 'SD', unitid: 'u1', rtype: 'ARTICLE', mime: 'HTML', login: 'bob', host: '1.1.1.1' };
  t.same(doubleClickKey(ec, defaults), { key: 'sd\u0001html\u0001L:bob\u0001u1\u0001ARTICLE', window: 10 });
  t.equal(doubleClickKey({ ...ec, session: 's' }, defaults)?.key.includes('C:s'), true);
  t.equal(doubleClickKey({ ...ec, mime: 'EPUB' }, defaults)?.window, 30, 'misc window');
  t.equal(doubleClickKey({ ...ec, mime: 'EPUB' }, defaults)?.key.split('\u0001')[1], 'misc');
  t.equal(doubleClickKey({ ...ec, unitid: '' }, defaults), undefined);
  t.equal(doubleClickKey({ ...ec, rtype: undefined }, defaults), undefined);
  t.equal(doubleClickKey({ ...ec, login: undefined, host: undefined }, defaults), undefined);
  const mixed = readDoubleClickOptions({ 'double-click-mixed': '10' });
  t.equal(doubleClickKey(ec, mixed)?.key, doubleClickKey({ ...ec, mime: 'PDF' }, mixed)?.key, 'MIXED: one window for all');
  const c5 = readDoubleClickOptions({ 'double-click-mode': 'counter5' });
  t.not(doubleClickKey(ec, c5)?.key, doubleClickKey({ ...ec, mime: 'PDF' }, c5)?.key, 'COUNTER 5: formats apart');
  t.equal(doubleClickKey({ ...ec, mime: 'PDF' }, c5)?.window, 30);
});

t.test('a user field named like an inherited property (constructor) is absent, not Object\'s function', async (t) => {
  const ec = { platform: 'SD', unitid: 'u1', rtype: 'ARTICLE', mime: 'HTML', login: 'bob' };
  const o = readDoubleClickOptions({ 'double-click-c-field': 'constructor' });
  t.equal(doubleClickKey(ec, o)?.key.includes('L:bob'), true, 'the next field of the strategy');
  t.equal(doubleClickKey({ ...ec, login: undefined }, o), undefined, 'no user key');
});

function run(events: Array<Partial<EventRecord> & { ts: number }>): { out: string[]; dropped: string[] } {
  const stage = new DoubleClickStage();
  const out: string[] = [];
  const dropped: string[] = [];
  const sink: SequentialSink = { emit: (e) => out.push(String(e.text)), reject: (e) => dropped.push(String(e.text)) };
  events.forEach((e, i) => stage.push({ text: String(i), denied: false, ...e }, sink));
  stage.end(sink);
  return { out, dropped };
}

t.test('the algorithm: last click kept, chains collapse, exact window counts, order kept', async (t) => {
  const k = { dupKey: 'a', dupWindow: 10 };
  t.same(run([{ ts: 0, ...k }, { ts: 10, ...k }]), { out: ['1'], dropped: ['0'] }, 'exactly the window: a double click');
  t.same(run([{ ts: 0, ...k }, { ts: 11, ...k }]), { out: ['0', '1'], dropped: [] });
  t.same(run([0, 4, 9, 14, 19, 24, 29].map((ts) => ({ ts, ...k }))).out, ['6'], 'manyclick: the last survives');
  t.same(run([{ ts: 0, ...k }, { ts: 1 }, { ts: 2, dupKey: 'b', dupWindow: 30 }, { ts: 5, ...k }]), { out: ['1', '2', '3'], dropped: ['0'] }, 'input order kept');
  t.same(run([{ ts: 0, ...k }, { ts: 3, ...k, denied: true }]).dropped, [], 'granted and denied apart');
});

t.test('memory follows the window, not the log', async (t) => {
  const stage = new DoubleClickStage();
  let emitted = 0;
  const sink: SequentialSink = { emit: () => emitted++, reject: () => undefined };
  let maxPending = 0;
  for (let i = 0; i < 100_000; i++) {
    stage.push({ ts: i, text: '', denied: false, dupKey: `k${i % 50}`, dupWindow: 30 }, sink);
    maxPending = Math.max(maxPending, stage.pending);
  }
  stage.end(sink);
  t.ok(maxPending <= 32, `at most a window's events pending (${maxPending})`);
});
