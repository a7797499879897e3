import t from 'tap';
import fc from 'fast-check';
import { createSerializer, frameFor } from '../../../src/pipeline/writers/index.js';
import type { OutputKind } from '../../../src/pipeline/writers/types.js';
import type { AccessEvent } from '../../../src/pipeline/event.js';
import { csvRows } from '../../helpers/http.js';

/**
 * Property tests of the writers: whatever the events hold (any text, quotes, separators, line
 * breaks, lone surrogates, odd numbers), serialising never throws; the JSON array and every
 * jsonstream line parse back to the events; CSV parses back to the values (trimmed, `\n`
 * removed, as the reference writes them); TSV keeps one row per event and its columns when no
 * value holds a line break. The number of cases is printed.
 */
const RUNS = 2000;

const name = fc.stringMatching(/^[a-z][a-z0-9_-]{0,6}$/).filter((n) => n !== '__proto__');
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: fc.constantFrom(';', '"', '\t', '\n', '\r', ' ', '#', 'a', ',', '\\', '\ud800', 'é'), maxLength: 12 }),
);
const value = fc.oneof({ weight: 5, arbitrary: text }, { weight: 1, arbitrary: fc.double() }, { weight: 1, arbitrary: fc.integer() }, { weight: 1, arbitrary: fc.constant(undefined) });

const sample = fc.uniqueArray(name, { minLength: 1, maxLength: 6 }).chain((columns) =>
  fc.tuple(fc.constant(columns), fc.array(fc.tuple(...columns.map(() => value)).map((values) => {
    const ec: AccessEvent = {};
    columns.forEach((c, i) => { if (values[i] !== undefined) ec[c] = values[i] as string | number; });
    return ec;
  }), { minLength: 1, maxLength: 8 })));

/** The whole body a job writes for these events. */
function body(kind: OutputKind, columns: string[], events: AccessEvent[]): string {
  const serializer = createSerializer(kind, columns);
  const frame = frameFor(kind, columns);
  let out = '';
  events.forEach((ec, i) => { out += (i === 0 ? frame.head : frame.separator) + serializer.serialize(ec) + (frame.terminator ?? ''); });
  return out + frame.tail;
}

const asJson = (ec: AccessEvent) => JSON.parse(JSON.stringify(ec)) as unknown;

t.test('writers: no exception, output parseable, CSV round-trips', async (t) => {
  fc.assert(fc.property(sample, ([columns, events]) => {
    t.same(JSON.parse(body('json', columns, events)), events.map(asJson));
    const lines = body('jsonstream', columns, events).split('\n').filter((l) => l !== '');
    t.same(lines.map((l) => JSON.parse(l) as unknown), events.map(asJson));
  }), { numRuns: RUNS, seed: 6 });
  t.comment(`fuzz: JSON and jsonstream writers, ${RUNS} sets of events`);

  fc.assert(fc.property(sample, ([columns, events]) => {
    // one row a line; an empty line is a row of one empty value
    const rows = body('csv', columns, events).split('\n').slice(0, -1).map((line) => csvRows(line)[0] ?? ['']);
    const cellText = (v: unknown) => (v === undefined ? '' : typeof v === 'number' ? String(v) : String(v).trim().replaceAll('\n', ''));
    const expected = [columns, ...events.map((ec) => columns.map((c) => cellText(ec[c])))];
    if (JSON.stringify(rows) !== JSON.stringify(expected)) throw new Error(`CSV: ${JSON.stringify(rows)} != ${JSON.stringify(expected)}`);
  }), { numRuns: RUNS, seed: 7 });
  t.comment(`fuzz: CSV writer, ${RUNS} sets of events written and read back`);

  fc.assert(fc.property(sample, ([columns, events]) => {
    const out = body('tsv', columns, events);
    const breaks = events.some((ec) => columns.some((c) => typeof ec[c] === 'string' && /[\n]/.test(ec[c] as string)));
    if (breaks) return;
    const rows = out.split('\n').filter((_l, i, all) => i < all.length - 1);
    if (rows.length !== events.length + 1) throw new Error(`TSV: ${rows.length} rows for ${events.length} events`);
    for (const row of rows) {
      const cells = row.match(/("([^"]|"")*"|[^\t"]*)(\t|$)/g)?.length ?? 0;
      if (cells < columns.length) throw new Error(`TSV: ${cells} cells in ${JSON.stringify(row)}`);
    }
  }), { numRuns: RUNS, seed: 8 });
  t.comment(`fuzz: TSV writer, ${RUNS} sets of events`);
});
