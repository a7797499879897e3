import t from 'tap';
import fc from 'fast-check';
import { compileDateFormat, DateFormatError, DEFAULT_DATE_FORMAT, makeEventTimer } from '../../src/pipeline/dates.js';

/**
 * Property tests of the date parser: any Date-Format gives a parser or a DateFormatError; a
 * parser never throws on any text and gives only real instants; the default format reads back
 * every instant written in it. The number of cases run is printed.
 */
const RUNS = 3000;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number, w = 2) => String(n).padStart(w, '0');

t.test('any Date-Format and any text: a parser or DateFormatError; parsing never throws', async (t) => {
  const tokens = fc.constantFrom('YYYY', 'YY', 'M', 'MM', 'MMM', 'MMMM', 'D', 'DD', 'Do', 'ddd', 'dddd', 'H', 'HH', 'h', 'hh', 'A', 'a', 'm', 'mm', 's', 'ss', 'S', 'SSS', 'Z', 'ZZ', 'X', 'x', '[at]', '/', ':', ' ', '-', 'T', 'Q', '[', ']', '%');
  const valid = fc.constantFrom('YYYY', 'MM', 'MMM', 'DD', 'D', 'HH', 'mm', 'ss', 'SSS', 'Z', 'A', 'hh', '/', ':', ' ', '-');
  const format = fc.oneof(
    { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
    { weight: 1, arbitrary: fc.array(tokens, { maxLength: 10 }).map((p) => p.join('')) },
    // a year, a month and a day in any order, with more tokens around
    {
      weight: 3,
      arbitrary: fc.tuple(fc.shuffledSubarray(['YYYY', 'MM', 'DD'], { minLength: 3 }), fc.array(valid, { maxLength: 6 }), fc.constantFrom(' ', '/', '-', ':'))
        .map(([core, extra, sep]) => [...core, ...extra].join(sep)),
    },
  );
  const text = fc.oneof(fc.string({ maxLength: 40 }), fc.stringMatching(/^[0-9A-Za-z/: +\-.]{0,32}$/), fc.stringMatching(/^[0-9]{1,4}([ /:-][0-9]{1,4}){2,7}$/));
  let parsed = 0;
  let refused = 0;
  fc.assert(fc.property(format, fc.array(text, { maxLength: 5 }), fc.constantFrom('UTC', 'Europe/Paris', '+05:30', 'local'), (f, texts, zone) => {
    let parser;
    try {
      parser = compileDateFormat(f, zone);
    } catch (err) {
      if (!(err instanceof DateFormatError)) throw err;
      refused++;
      return;
    }
    for (const x of texts) {
      const r = parser.parse(x);
      if (r && !Number.isFinite(r.epochMs)) throw new Error(`not an instant: ${JSON.stringify(r)}`);
      if (r) parsed++;
    }
    const timer = makeEventTimer(f, zone);
    for (const x of texts) timer({ datetime: x, timestamp: x, epoch: x });
  }), { numRuns: RUNS, seed: 3 });
  t.comment(`fuzz: date parser, ${RUNS} random formats with up to 5 texts each (${refused} formats refused, ${parsed} texts read as dates)`);
});

t.test('the default format reads back every instant written in it', async (t) => {
  const instant = fc.record({
    year: fc.integer({ min: 1000, max: 9998 }), month: fc.integer({ min: 1, max: 12 }), day: fc.integer({ min: 1, max: 28 }),
    hour: fc.integer({ min: 0, max: 23 }), minute: fc.integer({ min: 0, max: 59 }), second: fc.integer({ min: 0, max: 59 }),
    offset: fc.integer({ min: -14 * 60, max: 14 * 60 }).map((m) => m - (m % 15)),
  });
  const parser = compileDateFormat(DEFAULT_DATE_FORMAT);
  fc.assert(fc.property(instant, (d) => {
    const sign = d.offset < 0 ? '-' : '+';
    const abs = Math.abs(d.offset);
    const text = `${pad(d.day)}/${MONTHS[d.month - 1]}/${d.year}:${pad(d.hour)}:${pad(d.minute)}:${pad(d.second)} ${sign}${pad(Math.floor(abs / 60))}${pad(abs % 60)}`;
    const utc = new Date(0);
    utc.setUTCFullYear(d.year, d.month - 1, d.day);
    utc.setUTCHours(d.hour, d.minute, d.second, 0);
    const r = parser.parse(text);
    if (!r) throw new Error(`not read: ${text}`);
    if (r.epochMs !== utc.getTime() - d.offset * 60_000) throw new Error(`${text}: ${r.epochMs} instead of ${utc.getTime() - d.offset * 60_000}`);
    if (r.offsetMinutes !== d.offset) throw new Error(`${text}: offset ${r.offsetMinutes}`);
  }), { numRuns: RUNS, seed: 4 });
  t.comment(`fuzz: date parser, ${RUNS} instants written and read back`);
});
