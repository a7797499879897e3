import t from 'tap';
import { DoubleClickStage, doubleClickKey, doubleClickReport, readDoubleClickOptions } from '../../src/pipeline/double-clicks.js';
import type { EventRecord } from '../../src/pipeline/job-spec.js';
import type { HoldLimit, SequentialSink } from '../../src/pipeline/sequential.js';

const unbounded: HoldLimit = { maxHeld: Infinity, releasedEarly: () => undefined };

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
  t.throws(() => readDoubleClickOptions({ 'double-click-html': 'x' }), { message: /: Double-Click-HTML: expected/ }, 'the header named as the reference writes it');
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
  const stage = new DoubleClickStage(unbounded);
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
  const stage = new DoubleClickStage(unbounded);
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

/** Pushes `n` events of one time through a stage holding at most `maxHeld`; what came out, and the most it held. */
function oneTime(n: number, maxHeld: number, event: (i: number) => Partial<EventRecord>) {
  const early: number[] = [];
  const stage = new DoubleClickStage({ maxHeld, releasedEarly: (stage, count) => early.push(count) });
  const out: number[] = [];
  const dropped: number[] = [];
  const sink: SequentialSink = { emit: (e) => out.push(Number(e.text)), reject: (e) => dropped.push(Number(e.text)) };
  let most = 0;
  for (let i = 0; i < n; i++) {
    stage.push({ ts: 1709539200, text: String(i), denied: false, ...event(i) }, sink);
    most = Math.max(most, stage.pending);
  }
  stage.end(sink);
  return { out, dropped, most, early: early.reduce((a, b) => a + b, 0) };
}

const ascending = (a: number[]) => a.every((v, i) => i === 0 || v > a[i - 1]);

t.test('events of one time (a day-precision Date-Format): at most maxHeld held, the oldest released early, none lost', async (t) => {
  // 3,000 users, each clicking again 3,000 events later; one event in 4 has no key
  const r = oneTime(50_000, 1000, (i) => (i % 4 === 3 ? {} : { dupKey: `u${i % 3000}`, dupWindow: 30 }));
  t.ok(r.most <= 1000, `at most 1000 held (${r.most})`);
  t.same(r.dropped, [], 'a click 3,000 events later: its earlier one had left already');
  t.equal(r.out.length, 50_000, 'every event out');
  t.ok(ascending(r.out), 'in input order');
  const keyed = 50_000 - 12_500;
  t.ok(r.early >= keyed - 1000 && r.early <= keyed, `the held events released early counted (${r.early})`);

  const unbound = oneTime(50_000, Infinity, (i) => (i % 4 === 3 ? {} : { dupKey: `u${i % 3000}`, dupWindow: 30 }));
  t.ok(unbound.most > 30_000, `without a bound, most of the log is held (${unbound.most})`);
  t.equal(unbound.early, 0);
});

t.test('events of one time within the bound: double clicks found as without one', async (t) => {
  const click = (i: number) => ({ dupKey: `u${i % 300}`, dupWindow: 10 });
  const bounded = oneTime(20_000, 1000, click);
  const unbound = oneTime(20_000, Infinity, click);
  t.same(bounded.out, unbound.out, 'a click 300 events later is a double click either way');
  t.equal(bounded.dropped.length, 20_000 - 300);
  t.ok(bounded.most <= 1000, `at most 1000 held (${bounded.most})`);
  t.equal(bounded.early, 0, 'nothing released early: only duplicates were in the way');
});

t.test('one user clicking again and again at one time: the duplicates left in the windows are not held events', async (t) => {
  const r = oneTime(100_000, 1000, () => ({ dupKey: 'same', dupWindow: 30 }));
  t.ok(r.most <= 1000, `at most 1000 kept (${r.most})`);
  t.same(r.out, [99_999], 'the last click kept');
  t.equal(r.dropped.length, 99_999);
  t.equal(r.early, 0);
});
