import t from 'tap';
import { computeColumns, DEFAULT_OUTPUT_FIELDS, parseOutputFields } from '../../src/pipeline/output-fields.js';
import { csvHeader } from '../../src/pipeline/writers/csv.js';
import { StatusError } from '../../src/status-codes.js';

const GEOIP = ['geoip-country', 'geoip-latitude', 'geoip-longitude'];
/** properties of the format `%h %l %u %t "%r" %s %b`, in format order */
const FORMAT = ['host', 'identd', 'login', 'datetime', 'url', 'status', 'size'];

function statusOf(fn: () => unknown): { code?: number; message?: string } {
  try {
    fn();
  } catch (err) {
    if (err instanceof StatusError) return { code: err.code, message: err.message };
    throw err;
  }
  return {};
}

t.test('the default list is the reference list, in order', async (t) => {
  t.equal(
    DEFAULT_OUTPUT_FIELDS.join(';'),
    'datetime;date;login;platform;platform_name;publisher_name;rtype;mime;print_identifier;online_identifier;title_id;doi;publication_title;publication_date;unitid;domain;on_campus;log_id;ezpaarse_version;ezpaarse_date;middlewares_version;middlewares_date;platforms_version;platforms_date;middlewares',
  );
  t.ok(Object.isFrozen(DEFAULT_OUTPUT_FIELDS));
});

t.test('parseOutputFields', async (t) => {
  t.same(parseOutputFields(undefined), { add: [], remove: [] });
  t.same(parseOutputFields(''), { add: [], remove: [] });
  t.same(parseOutputFields('   '), { add: [], remove: [] });
  t.same(parseOutputFields('-host,-login,+datetime'), { add: ['datetime'], remove: ['host', 'login'] });
  t.same(parseOutputFields(' + pii , -  on_campus ,+vol'), { add: ['pii', 'vol'], remove: ['on_campus'] });

  for (const bad of ['+a,,+b', '+a,', ',+a', '+a, ,-b']) {
    const { code } = statusOf(() => parseOutputFields(bad));
    t.equal(code, 4012, `empty item in ${JSON.stringify(bad)}`);
  }
  const lone = statusOf(() => parseOutputFields('+a,+'));
  t.equal(lone.code, 4012, 'an operator without a name is an empty field');
  t.match(lone.message, /"\+"/);

  const bad = statusOf(() => parseOutputFields('+a,host,-b'));
  t.equal(bad.code, 4013);
  t.match(bad.message, /"host"/, 'the detail names the bad item');
  t.equal(statusOf(() => parseOutputFields('*host')).code, 4013);
});

t.test("reference 5.2's default job gives exactly the quoted header", async (t) => {
  const columns = computeColumns(parseOutputFields(undefined), GEOIP, FORMAT);
  t.equal(
    csvHeader(columns),
    'datetime;date;login;platform;platform_name;publisher_name;rtype;mime;print_identifier;online_identifier;title_id;doi;publication_title;publication_date;unitid;domain;on_campus;log_id;ezpaarse_version;ezpaarse_date;middlewares_version;middlewares_date;platforms_version;platforms_date;middlewares;geoip-country;geoip-latitude;geoip-longitude;host;identd;url;status;size',
  );
  const withCrossref = computeColumns(parseOutputFields(undefined), ['title', 'type', 'subject', ...GEOIP], FORMAT);
  t.equal(withCrossref.slice(24, 31).join(';'), 'middlewares;title;type;subject;geoip-country;geoip-latitude;geoip-longitude');
});

t.test('order, duplicates and removals', async (t) => {
  const spec = parseOutputFields('-host,-login,+datetime');
  const columns = computeColumns(spec, GEOIP, FORMAT);
  t.notOk(columns.includes('host'));
  t.notOk(columns.includes('login'));
  t.equal(columns.filter((c) => c === 'datetime').length, 1, 'datetime is already there');
  t.equal(columns[0], 'datetime');

  // + fields come before middleware fields, which come before format fields; no duplicates
  const c2 = computeColumns(parseOutputFields('+pii,+geoip-city,+pii'), ['geoip-city', 'geoip-country'], ['pii', 'host', 'x']);
  t.same(c2.slice(DEFAULT_OUTPUT_FIELDS.length), ['pii', 'geoip-city', 'geoip-country', 'host', 'x']);

  // a removal wins over a + and over a format property, wherever it is in the header
  const c3 = computeColumns(parseOutputFields('-url,+url,+robot,-date'), [], ['url', 'status']);
  t.notOk(c3.includes('url'));
  t.notOk(c3.includes('date'));
  t.ok(c3.includes('robot'));
  t.equal(c3.at(-1), 'status');

  // removing default fields and unknown fields is fine
  const c4 = computeColumns({ add: [], remove: [...DEFAULT_OUTPUT_FIELDS, 'nothing'] }, [], ['host']);
  t.same(c4, ['host']);
});
