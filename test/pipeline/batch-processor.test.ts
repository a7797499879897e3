import t from 'tap';
import { createJobContext, processBatch, provenanceSetter, type JobContext } from '../../src/pipeline/batch-processor.js';
import type { AccessEvent } from '../../src/pipeline/event.js';
import { readJobOptions } from '../../src/pipeline/job-options.js';
import { jobSpec } from '../../src/pipeline/job-spec.js';
import { computeColumns } from '../../src/pipeline/output-fields.js';
import { EventPacker, unpackEvents } from '../../src/pipeline/packed-events.js';
import type { EventStage } from '../../src/pipeline/stages/types.js';
import { anonymizerStage, createCrypter } from '../../src/pipeline/stages/anonymizer.js';

t.test('provenance: each field the event lacks, after its own, in order; names and values as data', async (t) => {
  const odd = 'a"b\'c`d${e}\\f\ng\u2028h';
  const add = provenanceSetter({ ezpaarse_version: '1.0', middlewares: 'filter, parser', [odd]: `"); globalThis.pwned = 1; ("` });
  const ec: AccessEvent = { url: 'http://x.org/', middlewares: 'mine' };
  add(ec);
  t.same(Object.entries(ec), [
    ['url', 'http://x.org/'],
    ['middlewares', 'mine'],
    ['ezpaarse_version', '1.0'],
    [odd, '"); globalThis.pwned = 1; ("'],
  ], 'a field the line gave is kept; the others follow it in the provenance order');
  t.equal((globalThis as { pwned?: number }).pwned, undefined);
  const again: AccessEvent = { ezpaarse_version: undefined };
  add(again);
  t.equal(again.ezpaarse_version, '1.0', 'an undefined field is a missing one');
  const none = provenanceSetter({});
  const e2 = { a: '1' };
  none(e2);
  t.same(e2, { a: '1' });
});

/** A job of the ezproxy format whose chain is one step setting fields in an order that varies. */
function stepJob(output: string): JobContext {
  const options = readJobOptions({ 'log-format-ezproxy': '%h %l %u %t "%r" %s %b', accept: output, 'output-fields': '+doi,+vol,+extra' }, { platforms: new Set() });
  const spec = { ...jobSpec('t', options.format!, options, { defaultZone: 'UTC', charset: 'utf-8', columns: computeColumns(options.outputFields, [], options.format!.fieldNames), versions: { ezpaarse_version: 'test' } }), middlewares: [] };
  const ctx = createJobContext(spec, { platforms: undefined as never, resources: undefined as never, packer: new EventPacker() });
  const step: EventStage = {
    name: 'fields',
    run(ec) {
      // set in an order that depends on the line, and one field no shape holds
      if (String(ec.url).includes('a')) Object.assign(ec, { rtype: 'ARTICLE', doi: '10.1/a', extra: 'x;y' });
      else Object.assign(ec, { vol: '3', extra: 'z', rtype: 'TOC' });
      return undefined;
    },
  };
  return { ...ctx, stages: [step] };
}

const stepLog = new TextEncoder().encode([
  '1.2.3.4 - jo [01/Jan/2024:10:00:00 +0000] "GET http://x.org/a HTTP/1.1" 200 10',
  '1.2.3.5 - - [01/Jan/2024:10:00:01 +0000] "GET http://x.org/b?q=1 HTTP/1.1" 200 20',
  'not a line of the format',
].join('\n'));

function texts(ctx: JobContext, wantJson = false): { text: string; json?: string }[] {
  return unpackEvents(processBatch(ctx, stepLog, 0, wantJson).events).map((e) => ({ text: Buffer.from(e.text).toString(), json: e.json }));
}

t.test('shaped events (event-shape.ts): the same CSV and TSV bytes as plain ones; the report\'s JSON in the order fields were set', async (t) => {
  for (const output of ['text/csv', 'text/tab-separated-values']) {
    const shaped = stepJob(output);
    t.ok(shaped.newEvent, `${output}: shaped`);
    const plain = { ...shaped, newEvent: undefined };
    t.same(texts(shaped), texts(plain), `${output}: the same rows`);
    t.match(texts(shaped)[0].text, /x;y|"x;y"/);
    t.same(texts(shaped, true), texts(plain, true), `${output}: the same rows and JSON with the first event`);
  }
  const json = texts(stepJob('text/csv'), true).map((e) => Object.keys(JSON.parse(e.json!)));
  t.same(json[0].slice(-3), ['rtype', 'doi', 'extra']);
  t.same(json[1].slice(-3), ['vol', 'extra', 'rtype']);
  t.notOk(json[1].includes('login'), 'an absent field is no key');
  t.equal(stepJob('application/json').newEvent, undefined, 'JSON output: plain events, keys in the order set');
});

t.test('a crypted timestamp: the chronology and the double-click windows still get the clear time', async (t) => {
  const ctx = stepJob('text/csv');
  const crypting: JobContext = { ...ctx, stages: [...ctx.stages, anonymizerStage(createCrypter({ fields: 'host,login,timestamp', salt: 's' })!)] };
  const events = unpackEvents(processBatch(crypting, stepLog, 0).events);
  t.same(events.map((e) => e.ts), [Date.UTC(2024, 0, 1, 10, 0, 0) / 1000, Date.UTC(2024, 0, 1, 10, 0, 1) / 1000]);
});
