import t, { type Test } from 'tap';
import { startApp } from '../helpers/app.js';
import { post, csvRows } from '../helpers/http.js';
import { jobReport } from '../helpers/jobs.js';
import { BIBLIOPAM_STANDARD_FORMAT } from '../../src/pipeline/formats/bibliopam.js';

/**
 * Bibliopam logs (reference 2.6 #4) over HTTP, with `Log-Format-bibliopam` and by auto-detection.
 * ../shared holds no Bibliopam log, so the lines are written in the standard format: a Unix
 * timestamp, a URL without scheme, quoted fields with commas and `&`, a trailing comma or not.
 */
const LINES = [
  '1354230858,10.1.2.3,224846,"ScienceDirect",www.sciencedirect.com/science/article/pii/S0967064508000301,200,"text/html; charset=utf-8","ETU/M1",a1b2,S0123,',
  '1354230918,10.1.2.4,24846,"Science & Tech, ScienceDirect",pdn.sciencedirect.com/science?_ob=MiamiImageURL&_pii=S0960982213001917,200,application/pdf,PERS,c3d4,S0456',
];
const BODY = LINES.join('\n') + '\n';

type Event = Record<string, string | number>;

const server = await startApp({}, { POOL_THREADS: '1' });
t.teardown(() => server.close());

function checkEvents(t: Test, events: Event[]): void {
  t.equal(events.length, 2, 'one event a line');
  const [a, b] = events;
  t.equal(a.platform, 'sd');
  t.equal(b.platform, 'sd');
  // the timestamp gives the instant (reference 2.7; written in the service's time zone), the URL
  // gets http:// (reference 2.8)
  t.equal(Date.parse(String(a.datetime)), 1354230858_000, 'the instant of the timestamp');
  t.equal(Date.parse(String(b.datetime)), 1354230918_000);
  t.equal(a.url, 'http://www.sciencedirect.com/science/article/pii/S0967064508000301');
  t.equal(b.url, 'http://pdn.sciencedirect.com/science?_ob=MiamiImageURL&_pii=S0960982213001917');
  t.equal(a.domain, 'www.sciencedirect.com');
  t.same([a.host, a.size, a.status, a.unitid, a.rtype, a.mime], ['10.1.2.3', '224846', '200', 'S0967064508000301', 'ARTICLE', 'HTML']);
  t.same([b.unitid, b.mime], ['S0960982213001917', 'PDF']);
  // the format's own fields come out as read
  t.same([a['ress-name'], a.mt, a.profil, a.uid, a['session-id']], ['ScienceDirect', 'text/html; charset=utf-8', 'ETU/M1', 'a1b2', 'S0123']);
  t.equal(b['ress-name'], 'Science & Tech, ScienceDirect', 'a quoted name keeps its comma');
}

t.test('Log-Format-bibliopam: standard lines become events', async (t) => {
  for (const value of ['standard', '']) {
    const res = await post(server.url, BODY, { 'Log-Format-bibliopam': value, Accept: 'application/json', 'Crypted-Fields': 'none' });
    t.equal(res.status, 200, `header value ${JSON.stringify(value)}`);
    checkEvents(t, res.json<Event[]>());
    const general = (await jobReport(server.varDir, res.headers['job-id'] as string)).general;
    t.equal(general['input-format-proxy'], 'bibliopam');
    t.equal(general['input-format-literal'], BIBLIOPAM_STANDARD_FORMAT);
    t.equal(general['nb-lines-input'], 2);
  }
  // CSV: the format's fields are among the output columns
  const csv = csvRows((await post(server.url, BODY, { 'Log-Format-bibliopam': 'standard', 'Crypted-Fields': 'none' })).text);
  t.equal(csv.length, 3);
  for (const f of ['timestamp', 'ress-name', 'profil', 'session-id']) t.ok(csv[0].includes(f), `column ${f}`);
});

t.test('a custom Bibliopam format', async (t) => {
  const res = await post(server.url, '1354230858,10.1.2.3,200,www.sciencedirect.com/science/article/pii/S0967064508000301\n', {
    'Log-Format-bibliopam': '%{timestamp}<[0-9]+>,%h,%>s,%U',
    Accept: 'application/json',
    'Crypted-Fields': 'none',
  });
  t.equal(res.status, 200);
  const [e] = res.json<Event[]>();
  t.same([e.platform, Date.parse(String(e.datetime)), e.status, e.unitid], ['sd', 1354230858_000, '200', 'S0967064508000301']);
});

t.test('no format header: auto-detection finds Bibliopam (reported as apache, as the reference does)', async (t) => {
  const res = await post(server.url, BODY, { Accept: 'application/json', 'Crypted-Fields': 'none' });
  t.equal(res.status, 200);
  checkEvents(t, res.json<Event[]>());
  const general = (await jobReport(server.varDir, res.headers['job-id'] as string)).general;
  t.equal(general['input-format-proxy'], 'apache');
  t.equal(general['input-format-literal'], BIBLIOPAM_STANDARD_FORMAT);
});
