import t from 'tap';
import {
  compileDateFormat,
  DateFormatError,
  DEFAULT_DATE_FORMAT,
  makeEventTimer,
  makeIsoEventTimer,
  type EventTime,
} from '../../src/pipeline/dates.js';

/** Instant (ms) of an ISO string, for readable expectations. */
const at = (iso: string) => Date.parse(iso);

function parsed(format: string, text: string, zone = 'UTC') {
  return compileDateFormat(format, zone).parse(text);
}

t.test('the default format: DD/MMM/YYYY:HH:mm:ss Z', async (t) => {
  t.equal(DEFAULT_DATE_FORMAT, 'DD/MMM/YYYY:HH:mm:ss Z');
  t.same(parsed(DEFAULT_DATE_FORMAT, '10/Apr/2012:09:38:11 +0200'), {
    epochMs: at('2012-04-10T07:38:11Z'),
    offsetMinutes: 120,
  });
  t.same(parsed(DEFAULT_DATE_FORMAT, '10/apr/2012:09:38:11 -0330'), {
    epochMs: at('2012-04-10T13:08:11Z'),
    offsetMinutes: -210,
  });
  t.same(parsed(DEFAULT_DATE_FORMAT, '10/Apr/2012:09:38:11 +02:00'), {
    epochMs: at('2012-04-10T07:38:11Z'),
    offsetMinutes: 120,
  });
  t.same(parsed(DEFAULT_DATE_FORMAT, '10/Apr/2012:09:38:11 Z'), { epochMs: at('2012-04-10T09:38:11Z'), offsetMinutes: 0 });
  t.same(parsed(DEFAULT_DATE_FORMAT, '10/Apr/2012:09:38:11 +02'), { epochMs: at('2012-04-10T07:38:11Z'), offsetMinutes: 120 });
  t.same(parsed(DEFAULT_DATE_FORMAT, '10/Apr/2012:09:38:11', 'Europe/Paris'), {
    epochMs: at('2012-04-10T07:38:11Z'),
    offsetMinutes: undefined,
  }, 'no offset: read in the zone');
  t.same(parsed(DEFAULT_DATE_FORMAT, '10/April/2012:09:38:11 +0000')?.epochMs, at('2012-04-10T09:38:11Z'), 'full month name too');
});

t.test('each token', async (t) => {
  const cases: [string, string, string][] = [
    ['YYYY-MM-DD', '2012-03-27', '2012-03-27T00:00:00Z'],
    ['YY-MM-DD', '12-03-27', '2012-03-27T00:00:00Z'],
    ['YY-MM-DD', '69-03-27', '1969-03-27T00:00:00Z'],
    ['YYYY-MM-DD', '68-03-27', '2068-03-27T00:00:00Z'],
    ['YYYY-M-D', '2012-3-7', '2012-03-07T00:00:00Z'],
    ['YYYY-M-D', '2012-03-07', '2012-03-07T00:00:00Z'],
    ['D MMM YYYY', '7 Mar 2012', '2012-03-07T00:00:00Z'],
    ['D MMMM YYYY', '7 March 2012', '2012-03-07T00:00:00Z'],
    ['D MMMM YYYY', '7 SEPT 2012', '2012-09-07T00:00:00Z'],
    ['MMMM Do YYYY', 'March 7th 2012', '2012-03-07T00:00:00Z'],
    ['MMMM Do YYYY', 'March 21st 2012', '2012-03-21T00:00:00Z'],
    ['ddd, DD MMM YYYY HH:mm:ss Z', 'Tue, 27 Mar 2012 06:52:44 +0200', '2012-03-27T04:52:44Z'],
    ['dddd DD MMM YYYY', 'Tuesday 27 Mar 2012', '2012-03-27T00:00:00Z'],
    ['YYYY-MM-DD H:m:s', '2012-03-27 6:5:4', '2012-03-27T06:05:04Z'],
    ['YYYY-MM-DD HH:mm:ss', '2012-03-27 16:05:04', '2012-03-27T16:05:04Z'],
    ['YYYY-MM-DD h:mm:ss A', '2012-03-27 4:05:04 PM', '2012-03-27T16:05:04Z'],
    ['YYYY-MM-DD hh:mm:ss a', '2012-03-27 12:05:04 am', '2012-03-27T00:05:04Z'],
    ['YYYY-MM-DD hh:mm:ss a', '2012-03-27 12:05:04 pm', '2012-03-27T12:05:04Z'],
    ['YYYY-MM-DD hh:mm:ss A', '2012-03-27 11:05:04 a.m.', '2012-03-27T11:05:04Z'],
    ['YYYY-MM-DD HH:mm:ss.S', '2012-03-27 16:05:04.7', '2012-03-27T16:05:04.700Z'],
    ['YYYY-MM-DD HH:mm:ss.SS', '2012-03-27 16:05:04.75', '2012-03-27T16:05:04.750Z'],
    ['YYYY-MM-DD HH:mm:ss.SSS', '2012-03-27 16:05:04.123', '2012-03-27T16:05:04.123Z'],
    ['YYYY-MM-DD HH:mm:ss.SSSSSS', '2012-03-27 16:05:04.123456', '2012-03-27T16:05:04.123Z'],
    ['YYYY-MM-DD[T]HH:mm:ssZ', '2012-03-27T16:05:04+01:00', '2012-03-27T15:05:04Z'],
    ['YYYY-MM-DDTHH:mm:ssZZ', '2012-03-27T16:05:04-0100', '2012-03-27T17:05:04Z'],
    ['YYYYMMDDHHmmss', '20120327160504', '2012-03-27T16:05:04Z'],
    ['[at] HH:mm [on] DD/MM/YYYY', 'at 16:05 on 27/03/2012', '2012-03-27T16:05:00Z'],
    ['X', '1319061710', '2011-10-19T22:01:50Z'],
    ['X', '1319061710.284', '2011-10-19T22:01:50.284Z'],
    ['x', '1319061710284', '2011-10-19T22:01:50.284Z'],
    ['YYYY-MM-DD', '2012-02-29', '2012-02-29T00:00:00Z'],
    ['YYYY-MM-DD', '2000-02-29', '2000-02-29T00:00:00Z'],
  ];
  for (const [format, text, iso] of cases) {
    t.equal(compileDateFormat(format).parse(text)?.epochMs, at(iso), `${format} reads ${text}`);
  }
  t.equal(parsed('X', '1319061710')?.offsetMinutes, undefined, 'an epoch has no written offset');
});

t.test('separators are not strict', async (t) => {
  const p = compileDateFormat('YYYY-MM-DD HH:mm:ss');
  const iso = at('2012-03-27T06:52:44Z');
  for (const text of ['2012-03-27 06:52:44', '2012/03/27:06:52:44', '2012.03.27 -- 06:52:44', '2012-03-27  06:52:44', '2012-03-27 06:52:44  ']) {
    t.equal(p.parse(text)?.epochMs, iso, text);
  }
  // but the text must be used up: what the format does not read is an offset, or nothing
  t.equal(p.parse('2012-03-27 06:52:44 and more'), undefined, 'trailing text');
  t.equal(p.parse('2012-03-2706:52:44'), undefined, 'a separator of the format missing between two full fields');
  t.equal(compileDateFormat('DD/MMM/YYYY:HH:mm:ss Z').parse('27/Mar/2012 06:52:44 +0200')?.epochMs, at('2012-03-27T04:52:44Z'));
});

t.test('bad dates give undefined', async (t) => {
  const p = compileDateFormat(DEFAULT_DATE_FORMAT);
  for (const text of [
    '',
    'garbage',
    '31/Feb/2012:09:38:11 +0200',
    '29/Feb/2013:09:38:11 +0200',
    '10/Foo/2012:09:38:11 +0200',
    '10/Apr/2012:24:00:00 +0200',
    '10/Apr/2012:09:60:11 +0200',
    '10/Apr/2012:09:38:61 +0200',
    '00/Apr/2012:09:38:11 +0200',
    '10/Apr/2012:09:38',
    '10/Apr/2012:09:38:11 +2500',
    '10/Apr/2012:09:38:11 +0260',
    '10/Apr/2012:09:38:11 +x',
    '10/Apr/0000:09:38:11 +0200',
  ]) {
    t.equal(p.parse(text), undefined, JSON.stringify(text));
  }
  t.equal(compileDateFormat('YYYY-MM-DD').parse('2012-13-01'), undefined, 'month 13');
  t.equal(compileDateFormat('X').parse('abc'), undefined);
  t.equal(compileDateFormat('X').parse('99999999999999'), undefined, 'beyond year 9999');
  t.equal(p.parse('10-Apr-2012X09:38:11 +0200'), undefined, 'a letter is not a separator (but ISO 8601\'s T before the hour is: below)');
});

t.test('unusable formats and zones throw DateFormatError', async (t) => {
  for (const format of ['', '   ', 'HH:mm:ss', 'YYYY-MM', 'YYYY-MM-DD MM', 'YYYY-MM-DD HH:MM:SS', 'YYY-MM-DD', 'YYYY-MM-DD [x', 'YYYYY-MM-DD', 'DDD']) {
    t.throws(() => compileDateFormat(format), DateFormatError, JSON.stringify(format));
  }
  t.throws(() => compileDateFormat('x'.repeat(300)), DateFormatError);
  t.throws(() => compileDateFormat('YYYY-MM-DD HH:MM'), DateFormatError);
  try {
    compileDateFormat('YYYY-MM-DD HH:MM');
  } catch (err) {
    t.match((err as Error).message, /month twice.*mm is minutes/);
  }
  t.throws(() => makeEventTimer(DEFAULT_DATE_FORMAT, 'Mars/Olympus_Mons'), DateFormatError);
  t.throws(() => makeEventTimer('HH', 'UTC'), DateFormatError);
  t.doesNotThrow(() => makeEventTimer('', 'UTC'), 'empty Date-Format means the default');
});

t.test('the three predefined Date-Format values', async (t) => {
  const paris = 'Europe/Paris';
  let timer = makeEventTimer('YYYY-MM-DD HH:mm:ss', paris);
  t.same(timer({ datetime: '2015-06-12 15:04:05' }), {
    timestamp: at('2015-06-12T13:04:05Z') / 1000,
    datetime: '2015-06-12T15:04:05+02:00',
    date: '2015-06-12',
  });
  // hh without A/a reads 13-23 as they are, as moment does when not strict
  timer = makeEventTimer('YYYY-MM-DD hh:mm:ss', paris);
  t.equal(timer({ datetime: '2015-01-12 15:04:05' })?.datetime, '2015-01-12T15:04:05+01:00');
  t.equal(timer({ datetime: '2015-01-12 03:04:05' })?.datetime, '2015-01-12T03:04:05+01:00');
  timer = makeEventTimer('YYYY/MM/DD:HH:mm:ss', paris);
  t.same(timer({ datetime: '2016/01/31:23:59:59' }), {
    timestamp: at('2016-01-31T22:59:59Z') / 1000,
    datetime: '2016-01-31T23:59:59+01:00',
    date: '2016-01-31',
  });
});

t.test('output keeps the offset of the line', async (t) => {
  const timer = makeEventTimer(DEFAULT_DATE_FORMAT, 'Europe/Paris');
  t.same(timer({ datetime: '26/Jun/2013:14:10:18 +0100' }), {
    timestamp: 1372252218,
    datetime: '2013-06-26T14:10:18+01:00',
    date: '2013-06-26',
  });
  t.same(timer({ datetime: '31/Dec/2012:23:30:00 -0500' }), {
    timestamp: at('2013-01-01T04:30:00Z') / 1000,
    datetime: '2012-12-31T23:30:00-05:00',
    date: '2012-12-31',
  }, 'date is the day of the line, not of the server');
  t.equal(timer({ datetime: '01/Jan/2013:00:30:00 +0530' })?.datetime, '2013-01-01T00:30:00+05:30');
  t.equal(timer({ datetime: '01/Jan/2013:00:30:00 Z' })?.datetime, '2013-01-01T00:30:00+00:00');
});

t.test('dates without offset: the zone, with its daylight saving time', async (t) => {
  const paris = makeEventTimer('YYYY-MM-DD HH:mm:ss', 'Europe/Paris');
  t.equal(paris({ datetime: '2013-06-26 14:10:18' })?.datetime, '2013-06-26T14:10:18+02:00', 'summer');
  t.equal(paris({ datetime: '2013-12-26 14:10:18' })?.datetime, '2013-12-26T14:10:18+01:00', 'winter');
  // clocks go forward at 02:00 → 03:00: 02:30 does not exist and moves forward
  t.same(paris({ datetime: '2021-03-28 02:30:00' }), {
    timestamp: at('2021-03-28T01:30:00Z') / 1000,
    datetime: '2021-03-28T03:30:00+02:00',
    date: '2021-03-28',
  });
  t.equal(paris({ datetime: '2021-03-28 01:59:59' })?.datetime, '2021-03-28T01:59:59+01:00');
  t.equal(paris({ datetime: '2021-03-28 03:00:00' })?.datetime, '2021-03-28T03:00:00+02:00');
  // clocks go back at 03:00 → 02:00: 02:30 happens twice, the earlier is taken
  t.equal(paris({ datetime: '2021-10-31 02:30:00' })?.timestamp, at('2021-10-31T00:30:00Z') / 1000);
  t.equal(paris({ datetime: '2021-10-31 02:30:00' })?.datetime, '2021-10-31T02:30:00+02:00');
  t.equal(paris({ datetime: '2021-10-31 03:00:00' })?.datetime, '2021-10-31T03:00:00+01:00');

  const ny = makeEventTimer('YYYY-MM-DD HH:mm:ss', 'America/New_York');
  t.equal(ny({ datetime: '2021-03-14 02:30:00' })?.datetime, '2021-03-14T03:30:00-04:00');
  t.equal(ny({ datetime: '2021-11-07 01:30:00' })?.datetime, '2021-11-07T01:30:00-04:00');
  t.equal(ny({ datetime: '2021-11-07 02:30:00' })?.datetime, '2021-11-07T02:30:00-05:00');

  const kathmandu = makeEventTimer('YYYY-MM-DD HH:mm:ss', 'Asia/Kathmandu');
  t.equal(kathmandu({ datetime: '2021-11-07 02:30:00' })?.datetime, '2021-11-07T02:30:00+05:45');
  t.equal(makeEventTimer('YYYY-MM-DD HH:mm:ss', 'UTC')({ datetime: '2021-11-07 02:30:00' })?.datetime, '2021-11-07T02:30:00+00:00');
  t.equal(makeEventTimer('YYYY-MM-DD HH:mm:ss', '+03:00')({ datetime: '2021-11-07 02:30:00' })?.datetime, '2021-11-07T02:30:00+03:00');
  t.equal(makeEventTimer('YYYY-MM-DD HH:mm:ss', '-0930')({ datetime: '2021-11-07 02:30:00' })?.datetime, '2021-11-07T02:30:00-09:30');
});

t.test("'local' is the server's zone (TZ)", async (t) => {
  const saved = process.env.TZ;
  t.teardown(() => {
    if (saved === undefined) delete process.env.TZ;
    else process.env.TZ = saved;
  });
  process.env.TZ = 'America/New_York';
  const timer = makeEventTimer('YYYY-MM-DD HH:mm:ss', 'local');
  t.equal(timer({ datetime: '2021-07-01 12:00:00' })?.datetime, '2021-07-01T12:00:00-04:00');
  t.equal(timer({ datetime: '2021-03-14 02:30:00' })?.datetime, '2021-03-14T03:30:00-04:00');
  t.equal(timer({ timestamp: '1625155200' })?.datetime, '2021-07-01T12:00:00-04:00');
  process.env.TZ = 'UTC';
  t.equal(makeEventTimer('YYYY-MM-DD HH:mm:ss', 'local')({ datetime: '2021-07-01 12:00:00' })?.datetime, '2021-07-01T12:00:00+00:00');
});

t.test('timestamp and epoch fields come before datetime', async (t) => {
  const timer = makeEventTimer(DEFAULT_DATE_FORMAT, 'Europe/Paris');
  const expected: EventTime = { timestamp: 1319061710, datetime: '2011-10-20T00:01:50+02:00', date: '2011-10-20' };
  t.same(timer({ timestamp: '1319061710', subsecond: '284' }), expected, 'squid %ts');
  t.same(timer({ timestamp: '1319061710.284' }), expected, 'seconds with a fraction');
  t.same(timer({ epoch: '1319061710' }), expected, 'custom %{epoch}');
  t.same(timer({ timestamp: '1319061710', datetime: '10/Apr/2012:09:38:11 +0200' }), expected, 'timestamp wins');
  t.equal(timer({ timestamp: 'abc', datetime: '10/Apr/2012:09:38:11 +0200' })?.datetime, '2012-04-10T09:38:11+02:00', 'a garbage timestamp falls back');
  t.equal(timer({ timestamp: 'abc', epoch: '1319061710' })?.timestamp, 1319061710);
  t.equal(timer({ timestamp: '' , datetime: '10/Apr/2012:09:38:11 +0200'})?.timestamp, at('2012-04-10T07:38:11Z') / 1000);
  t.equal(timer({ timestamp: '1.', epoch: '-5' }), undefined);
  t.equal(timer({ timestamp: '999999999999999' }), undefined, 'beyond year 9999');
  t.equal(timer({}), undefined, 'no date at all');
  t.equal(timer({ datetime: 'not a date' }), undefined);
  t.equal(timer({ datetime: '' }), undefined);
  t.equal(typeof timer({ timestamp: '1319061710' })?.timestamp, 'number');
  t.equal(timer({ timestamp: '0' })?.datetime, '1970-01-01T01:00:00+01:00');
});

t.test('the cache: same text, same answer', async (t) => {
  const timer = makeEventTimer(DEFAULT_DATE_FORMAT, 'UTC');
  const a = timer({ datetime: '10/Apr/2012:09:38:11 +0200' });
  t.equal(timer({ datetime: '10/Apr/2012:09:38:11 +0200' }), a, 'cached object');
  t.ok(Object.isFrozen(a), 'shared objects are frozen');
  t.equal(timer({ datetime: 'bad' }), undefined);
  t.equal(timer({ datetime: 'bad' }), undefined, 'failures are cached too');
  // far more distinct dates than the cache holds
  const base = at('2012-04-10T00:00:00Z') / 1000;
  for (let i = 0; i < 3000; i++) {
    const s = i % 60;
    const m = Math.floor(i / 60) % 60;
    const text = `10/Apr/2012:00:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')} +0000`;
    if (timer({ datetime: text })?.timestamp !== base + m * 60 + s) {
      t.fail(text);
      break;
    }
  }
  t.pass('3000 distinct dates read right');
});

t.test('a long run of lines is cheap', async (t) => {
  const timer = makeEventTimer(DEFAULT_DATE_FORMAT, 'Europe/Paris');
  const texts: string[] = [];
  for (let i = 0; i < 20000; i++) texts.push(`30/Nov/2012:${String(Math.floor(i / 3600) % 24).padStart(2, '0')}:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')} +0100`);
  const start = performance.now();
  let n = 0;
  for (let rep = 0; rep < 10; rep++) for (const text of texts) if (timer({ datetime: text })) n++;
  const ms = performance.now() - start;
  t.equal(n, 200000);
  t.ok(ms < 5000, `200 000 lines in ${ms.toFixed(0)} ms`);
});

t.test('a date of the same minute as the one before reads as a fresh parse would', async (t) => {
  const fc = (await import('fast-check')).default;
  const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const p2 = (n: number) => String(n).padStart(2, '0');
  // (format, zone, writer): the writer turns an instant and an offset into the text of a line
  const styles: Array<[string, string, (d: Date, offset: number) => string]> = [
    [DEFAULT_DATE_FORMAT, 'Europe/Paris', (d, o) => `${p2(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())} ${o < 0 ? '-' : '+'}${p2(Math.abs(o) / 60 | 0)}${p2(Math.abs(o) % 60)}`],
    ['YYYY-MM-DD HH:mm:ss', 'UTC', (d) => d.toISOString().slice(0, 19).replace('T', ' ')],
    ['YYYY-MM-DD HH:mm:ss', '+05:30', (d) => d.toISOString().slice(0, 19).replace('T', ' ')],
    // a zone with summer time: no shortcut, every date read in the zone
    ['YYYY-MM-DD HH:mm:ss', 'Europe/Paris', (d) => d.toISOString().slice(0, 19).replace('T', ' ')],
    // one-digit seconds, and a zone name after the date
    ['D/M/YYYY H:m:s', 'Europe/Paris', (d) => `${d.getUTCDate()}/${d.getUTCMonth() + 1}/${d.getUTCFullYear()} ${d.getUTCHours()}:${d.getUTCMinutes()}:${d.getUTCSeconds()} GMT`],
  ];
  const line = fc.record({
    gap: fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 200 }), fc.constant(-5)),
    offset: fc.constantFrom(60, 60, 60, 120, -210, 0),
    noise: fc.constantFrom(undefined, undefined, undefined, undefined, '61', '6x', ''),
  });
  for (const [format, zone, write] of styles) {
    fc.assert(
      fc.property(fc.integer({ min: 946684800, max: 1900000000 }), fc.array(line, { minLength: 1, maxLength: 60 }), (start, lines) => {
        const timer = makeEventTimer(format, zone);
        let now = start;
        for (const { gap, offset, noise } of lines) {
          now += gap;
          let text = write(new Date((now + offset * 60) * 1000), offset);
          // a seconds field that is not a second, or is empty
          if (noise !== undefined) text = text.replace(/:(\d\d?)( |$)/, `:${noise}$2`);
          const fresh = makeEventTimer(format, zone)({ datetime: text });
          const got = timer({ datetime: text });
          if (JSON.stringify(got) !== JSON.stringify(fresh)) throw new Error(`${format} ${zone} ${text}: ${JSON.stringify(got)} vs ${JSON.stringify(fresh)}`);
        }
      }),
      { numRuns: 300 },
    );
    t.pass(`${format} in ${zone}`);
  }
});

t.test('a Date-Format without Z: an offset written right after the date is read, not dropped', async (t) => {
  const noZ = 'DD/MMM/YYYY:HH:mm:ss';
  t.same(parsed(noZ, '30/Nov/2012:00:00:11 +0500', 'Europe/Paris'), { epochMs: at('2012-11-29T19:00:11Z'), offsetMinutes: 300 });
  t.same(parsed('YYYY-MM-DD HH:mm:ss', '2012-11-30 13:00:13 +05:30'), { epochMs: at('2012-11-30T07:30:13Z'), offsetMinutes: 330 });
  t.same(parsed('YYYY-MM-DDTHH:mm:ss', '2012-11-30T13:00:13Z', 'Europe/Paris'), { epochMs: at('2012-11-30T13:00:13Z'), offsetMinutes: 0 });
  // also after seconds the format does not read
  t.same(parsed('DD/MMM/YYYY:HH:mm', '30/Nov/2012:00:00:11 +0500', 'Europe/Paris'), { epochMs: at('2012-11-29T19:00:00Z'), offsetMinutes: 300 });
  t.same(parsed('DD/MMM/YYYY:HH:mm', '30/Nov/2012:00:00 +05', 'Europe/Paris'), { epochMs: at('2012-11-29T19:00:00Z'), offsetMinutes: 300 });
  // anything else after the date: the format does not fit the line (the reference ignored it)
  for (const rest of [' -0500 x', ' 0500', ' [x]', ' CET', ' +05:00:00', 'x']) {
    t.equal(parsed('DD/MMM/YYYY:HH:mm', `30/Nov/2012:00:00${rest}`, 'Europe/Paris'), undefined, JSON.stringify(rest));
  }
});

t.test('CSV re-injection dates: fractions of a second and a space before the offset keep the offset', async (t) => {
  const iso = makeIsoEventTimer('Europe/Paris');
  const at = (datetime: string) => iso({ datetime })?.timestamp;
  t.equal(at('2024-03-04T08:05:07.123+05:30'), Date.parse('2024-03-04T02:35:07Z') / 1000, 'a fraction, then the offset');
  t.equal(at('2024-03-04T08:10:07 +01:00'), Date.parse('2024-03-04T07:10:07Z') / 1000, 'a space before the offset');
  t.equal(at('2024-03-04 08:10:07.5 Z'), Date.parse('2024-03-04T08:10:07Z') / 1000);
  t.equal(iso({ datetime: '2024-03-04T08:05:07.123+05:30' })?.datetime, '2024-03-04T08:05:07+05:30', 'the offset written is kept');
  t.equal(at('2024-03-04T08:05:07'), Date.parse('2024-03-04T07:05:07Z') / 1000, 'no offset: the default zone');
});

t.test('a T between date and time is read where the format has a separator (moment, non-strict, does)', async (t) => {
  t.same(parsed('YYYY-MM-DD HH:mm:ss Z', '2023-03-14T10:20:30+01:00'), { epochMs: at('2023-03-14T09:20:30Z'), offsetMinutes: 60 });
  t.same(parsed('YYYY-MM-DD HH:mm:ss', '2023-03-14t10:20:30'), { epochMs: at('2023-03-14T10:20:30Z'), offsetMinutes: undefined });
  t.same(parsed('YYYY-MM-DD HH:mm:ss', '2023-03-14 10:20:30'), { epochMs: at('2023-03-14T10:20:30Z'), offsetMinutes: undefined }, 'the space as before');
  t.equal(parsed('YYYY-MM-DD HH:mm:ss', '2023-03-14Tx0:20:30'), undefined, 'a T not followed by the hour is not skipped');
});

t.test('the offset written in the line is found past what the format does not read', async (t) => {
  const paris = 'Europe/Paris';
  const timer = makeEventTimer(DEFAULT_DATE_FORMAT, paris);
  t.same(timer({ datetime: '01/Jul/2024:10:00:03.5 +0000' }), { timestamp: 1719828003, datetime: '2024-07-01T10:00:03+00:00', date: '2024-07-01' }, 'a fraction before the offset');
  t.equal(timer({ datetime: '01/Jul/2024:10:00:03,250 -0130' })?.datetime, '2024-07-01T10:00:03-01:30');
  for (const format of ['YYYY-MM-DD HH:mm:ss', 'YYYY-MM-DD HH:mm:ss Z', 'YYYY-MM-DD HH:mm:ssZ']) {
    t.same(parsed(format, '2024-10-27 02:33:00.250 +0100', paris), { epochMs: at('2024-10-27T01:33:00Z'), offsetMinutes: 60 }, format);
  }
  t.same(parsed('DD/MMM/YYYY:HH:mm Z', '27/Oct/2024:02:30:00 +0100', paris), { epochMs: at('2024-10-27T01:30:00Z'), offsetMinutes: 60 }, 'seconds the format lacks');
  t.same(parsed('DD/MMM/YYYY:HH:mm Z', '27/Oct/2024:02:30:00', paris), { epochMs: at('2024-10-27T00:30:00Z'), offsetMinutes: undefined }, 'no offset: the zone');
  // a fraction token with no fraction written: the offset is not read as one
  for (const format of ['YYYY-MM-DD HH:mm:ss.SSS', 'YYYY-MM-DD HH:mm:ss.SSS Z']) {
    t.same(parsed(format, '2024-10-27 02:30:00 +0100', paris), { epochMs: at('2024-10-27T01:30:00Z'), offsetMinutes: 60 }, format);
    t.same(parsed(format, '2024-10-27 02:30:00.5 +0100', paris), { epochMs: at('2024-10-27T01:30:00.500Z'), offsetMinutes: 60 }, format);
    t.same(parsed(format, '2024-10-27 02:30:00.5-01:00', paris), { epochMs: at('2024-10-27T03:30:00.500Z'), offsetMinutes: -60 }, format);
    t.same(parsed(format, '2024-10-27 02:30:00', 'UTC'), { epochMs: at('2024-10-27T02:30:00Z'), offsetMinutes: undefined }, format);
  }
  t.same(parsed('YYYY-MM-DD HH:mm:ssSSS', '2024-10-27 02:30:00 +0100', paris), { epochMs: at('2024-10-27T01:30:00Z'), offsetMinutes: 60 }, 'a fraction token right after the seconds');
  t.same(parsed('YYYY-MM-DD HH:mm:ssSSS', '2024-10-28 02:30:00250', paris)?.epochMs, at('2024-10-28T01:30:00.250Z'));
  // where the offset should stand, something that is not one: not dropped silently
  for (const text of ['01/Jul/2024:10:00:03 CET', '01/Jul/2024:10:00:03.5 x', '01/Jul/2024:10:00:03 +0100 x', '01/Jul/2024:10:00:03 Zulu', '01/Jul/2024:10:00:03 +01000']) {
    t.equal(timer({ datetime: text }), undefined, text);
  }
});

t.test('GMT and UTC after the time read as +00:00, not as the default zone', async (t) => {
  const timer = makeEventTimer(DEFAULT_DATE_FORMAT, 'Europe/Paris');
  t.same(timer({ datetime: '01/Jul/2024:10:00:00 GMT' }), { timestamp: 1719828000, datetime: '2024-07-01T10:00:00+00:00', date: '2024-07-01' });
  t.equal(timer({ datetime: '01/Jul/2024:10:00:00 UTC' })?.datetime, '2024-07-01T10:00:00+00:00');
  t.equal(timer({ datetime: '01/Jul/2024:10:00:00 utc' })?.datetime, '2024-07-01T10:00:00+00:00');
  t.equal(timer({ datetime: '01/Jul/2024:10:00:00 GMT+0200' })?.datetime, '2024-07-01T10:00:00+02:00');
  t.equal(timer({ datetime: '01/Jul/2024:10:00:00 UTCX' }), undefined);
  t.equal(makeEventTimer('YYYY-MM-DD HH:mm:ss', 'Europe/Paris')({ datetime: '2024-10-27 02:30:00 gmt' })?.datetime, '2024-10-27T02:30:00+00:00', 'a format without Z');
  const iso = makeIsoEventTimer('Europe/Paris');
  t.equal(iso({ datetime: '2024-10-27T02:30:00 UTC' })?.datetime, '2024-10-27T02:30:00+00:00', 'CSV');
  t.equal(iso({ datetime: '2024-10-27 02:30:00GMT' })?.timestamp, at('2024-10-27T02:30:00Z') / 1000);
});

t.test('a Date-Format that does not fit the text reads nothing (the job then fails with 4003)', async (t) => {
  t.equal(parsed('X', '2024-10-27 02:30:00'), undefined, 'an epoch over a date');
  t.equal(parsed('x', '2024-10-27 02:30:00'), undefined);
  t.same(parsed('X', '1319061710 '), parsed('X', '1319061710'), 'spaces after it are fine');
  t.equal(parsed(DEFAULT_DATE_FORMAT, '27/Oct/20245:10:00:00 +0100'), undefined, 'a five-digit year');
  t.equal(parsed('YY-MM-DD', '2012-03-27'), undefined, 'YY over a four-digit year');
  t.equal(parsed('YYYY-MM-DD HH:mm:ss', '2012-03-27 06:52:441'), undefined, 'seconds with three digits');
  t.equal(parsed('YYYY-MM-DD', '2012-03-27 06:52:44'), undefined, 'a time the format does not read');
  t.equal(parsed('DD MMM YYYY', '27 Mar 2012')?.epochMs, at('2012-03-27T00:00:00Z'));
  t.equal(parsed('YYYYMMDDHHmmss', '20120327160504')?.epochMs, at('2012-03-27T16:05:04Z'), 'fields side by side in the format');
});

t.test('CSV ISO dates without seconds, or without a time', async (t) => {
  const iso = makeIsoEventTimer('Europe/Paris');
  t.same(iso({ datetime: '2024-10-27T02:30' }), { timestamp: at('2024-10-27T00:30:00Z') / 1000, datetime: '2024-10-27T02:30:00+02:00', date: '2024-10-27' });
  t.equal(iso({ datetime: '2024-10-27 03:30' })?.datetime, '2024-10-27T03:30:00+01:00');
  t.equal(iso({ datetime: '2024-10-27T02:30+05:30' })?.datetime, '2024-10-27T02:30:00+05:30');
  t.equal(iso({ datetime: '2024-10-27T02:30Z' })?.datetime, '2024-10-27T02:30:00+00:00');
  t.same(iso({ datetime: '2024-10-27' }), { timestamp: at('2024-10-26T22:00:00Z') / 1000, datetime: '2024-10-27T00:00:00+02:00', date: '2024-10-27' }, 'midnight in the zone');
  t.equal(iso({ datetime: '2024-12-27' })?.datetime, '2024-12-27T00:00:00+01:00');
  for (const text of ['2024-10-27T02', '2024-10-27T02:3', '2024-10-2', '2024-10-27T02:30:00:00', '2024-10-27x']) t.equal(iso({ datetime: text }), undefined, text);
});
