import t, { type Test } from 'tap';
import { compileFormat, isProxyFamily, tokenizeFormat } from '../../../src/pipeline/formats/compile.js';
import { BIBLIOPAM_STANDARD_FORMAT } from '../../../src/pipeline/formats/bibliopam.js';
import { analyseRegex, escapeLiteral, findRegexEnd, literalReversedHyphens } from '../../../src/pipeline/formats/grammar.js';
import { parseLine } from '../../../src/pipeline/formats/line-parser.js';
import { FormatError, type ProxyFamily } from '../../../src/pipeline/formats/types.js';
import { APACHE_DIRECTIVES } from '../../../src/pipeline/formats/apache.js';
import { EZPROXY_DIRECTIVES } from '../../../src/pipeline/formats/ezproxy.js';
import { SQUID_DIRECTIVES } from '../../../src/pipeline/formats/squid.js';

/** Runs fn and returns the FormatError it throws (fails the test if it does not). */
function formatError(t: Test, family: ProxyFamily, literal: string): FormatError {
  try {
    compileFormat(family, literal);
  } catch (err) {
    t.type(err, FormatError, `${literal.slice(0, 60)}: throws a FormatError`);
    return err as FormatError;
  }
  t.fail(`${literal.slice(0, 60)}: should not compile`);
  return new FormatError('none');
}

t.test('reference examples compile to the exact regexes of pipeline.md', async (t) => {
  const ez = compileFormat('ezproxy', '%h %l %u %t "%r" %s %b');
  t.equal(
    ez.regex.source,
    String.raw`^([a-zA-Z0-9.\-:]+(?:, ?[a-zA-Z0-9.\-:]+)*) ([a-zA-Z0-9\-]+) ([a-zA-Z0-9@.\-_%,=]+) \[([^\]]+)\] "[A-Z]+ ([^ ]+) [^ ]+" ([0-9]+) ([0-9]+)$`,
  );
  t.same(ez.groups, ['host', 'identd', 'login', 'datetime', 'url', 'status', 'size']);
  t.same(ez.fieldNames, ['host', 'identd', 'login', 'datetime', 'url', 'status', 'size']);
  t.equal(ez.family, 'ezproxy');
  t.equal(ez.literal, '%h %l %u %t "%r" %s %b');
  t.equal(ez.source, '/' + ez.regex.source + '/');
  t.equal(ez.regex.flags, '');

  const squid = compileFormat('squid', '%ts.%03tu %6tr %>a %Ss/%03>Hs %<st %rm %ru %[un %Sh/%<a %mt');
  t.equal(
    squid.regex.source,
    String.raw`^[ ]*([0-9]+)\.[ ]*([0-9]+) [ ]*([0-9]+) [ ]*([a-zA-Z0-9.\-:]+(?:, ?[a-zA-Z0-9.\-:]+)*) [ ]*([a-zA-Z_]+)\/[ ]*([0-9]+) [ ]*([0-9]+) [ ]*([A-Z]+) [ ]*([^ ]+) [ ]*([a-zA-Z0-9@\.\-_%=,]+) [ ]*([a-zA-Z_]+)\/[ ]*([a-zA-Z0-9\.\-, ]+) [ ]*([a-zA-Z]+\/[a-zA-Z0-9\-]+|\-)$`,
  );
  t.same(squid.fieldNames, [
    'timestamp',
    'subsecond',
    'responseTime',
    'host',
    'squidRequestStatus',
    'status',
    'size',
    'method',
    'url',
    'login',
    'squidHierarchyStatus',
    'lastConnection',
    'mime',
  ]);
});

t.test('dictionaries follow the reference tables', async (t) => {
  const ez = Object.fromEntries([...EZPROXY_DIRECTIVES].map(([k, d]) => [k, d.property]));
  t.same(ez, { h: 'host', u: 'login', l: 'identd', b: 'size', U: 'url', m: 'method', r: 'url', t: 'datetime', s: 'status' });
  t.equal(EZPROXY_DIRECTIVES.get('b')!.pattern, '([0-9]+)', 'EZproxy %b has no dash');
  t.equal(APACHE_DIRECTIVES.get('b')!.pattern, '([0-9]+|\\-)', 'Apache %b accepts a dash');
  t.equal(APACHE_DIRECTIVES.get('u')!.pattern, '([a-zA-Z0-9@.\\-_%=,]+)');
  const squid = Object.fromEntries([...SQUID_DIRECTIVES].map(([k, d]) => [k, d.property]));
  t.same(squid, {
    ts: 'timestamp',
    tu: 'subsecond',
    tr: 'responseTime',
    tl: 'datetime',
    '>a': 'host',
    '<a': 'lastConnection',
    '<A': 'domain',
    Ss: 'squidRequestStatus',
    lp: 'port',
    '>Hs': 'status',
    '<st': 'size',
    rm: 'method',
    rv: 'protocolVersion',
    ru: 'url',
    un: 'login',
    Sh: 'squidHierarchyStatus',
    mt: 'mime',
    ui: 'identd',
  });
  // every directive pattern has exactly one capturing group and accepts its own sample
  for (const [family, dict] of [
    ['ezproxy', EZPROXY_DIRECTIVES],
    ['apache', APACHE_DIRECTIVES],
    ['squid', SQUID_DIRECTIVES],
  ] as const) {
    for (const [key, d] of dict) {
      t.equal(analyseRegex(d.pattern).captures, 1, `${family} %${key}: one group`);
      t.ok(new RegExp('^' + d.pattern + '$').test(d.sample), `${family} %${key}: sample ${d.sample} matches`);
    }
  }
});

t.test('Apache: reference directives plus the usual real ones', async (t) => {
  const f = compileFormat('apache', '%a %A %v %V %p "%m %U%q %H" %s %>s %B %O %I %D %T');
  t.same(f.groups, [
    'host',
    'serverIp',
    'serverName',
    'serverName',
    'port',
    'method',
    'url',
    'query',
    'protocol',
    'status',
    'status',
    'size',
    'bytesSent',
    'bytesReceived',
    'responseTimeMicros',
    'responseTimeSeconds',
  ]);
  const line =
    '10.0.0.1 10.0.0.2 proxy.example.org proxy.example.org 443 "GET /path?q=1 HTTP/1.1" 302 200 512 900 100 1500 0';
  const ec = parseLine(f, line);
  t.same(ec, {
    host: '10.0.0.1',
    serverIp: '10.0.0.2',
    serverName: 'proxy.example.org',
    port: '443',
    method: 'GET',
    url: '/path?q=1',
    protocol: 'HTTP/1.1',
    status: '200',
    size: '512',
    bytesSent: '900',
    bytesReceived: '100',
    responseTimeMicros: '1500',
    responseTimeSeconds: '0',
  });
  t.same(parseLine(compileFormat('apache', '"%U%q"'), '"/a?b=1"'), { url: '/a?b=1' }, '%U keeps the query it meets');
  t.same(parseLine(compileFormat('apache', '%U %q'), '/a ?b=1'), { url: '/a', query: '?b=1' });
  t.same(parseLine(compileFormat('apache', '%U %q'), '/a '), { url: '/a' }, 'an empty %q is absent');
  t.equal(formatError(t, 'apache', '%h %>x').token, '%>x');
});

t.test('unknown directives are errors naming the token and its place', async (t) => {
  const err = formatError(t, 'ezproxy', '%h %Z %u');
  t.equal(err.token, '%Z');
  t.equal(err.position, 3);
  t.match(err.message, /unknown EZproxy directive %Z at character 4/);
  t.match(err.message, /supported: %h/);
  t.match(err.message, /%%/);
  t.equal(formatError(t, 'apache', '%h %m %>s %Y').token, '%Y');
  t.equal(formatError(t, 'squid', '%ts %zz').token, '%zz');
  t.equal(formatError(t, 'squid', '%ts %>Hx').token, '%>Hx');
  t.match(formatError(t, 'ezproxy', '%h %').message, /lone %/);
  t.match(formatError(t, 'ezproxy', '%h % %u').message, /is not a directive of the EZproxy format; write %% for a literal percent sign/);
  t.match(formatError(t, 'squid', '%ts %').message, /lone %/);
  t.match(formatError(t, 'squid', '%ts %?').message, /not a Squid format code/);
  t.match(formatError(t, 'ezproxy', '%h %{bad name} %u').message, /custom field is written %\{name\}/);
});

t.test('%% is a literal percent sign', async (t) => {
  const f = compileFormat('ezproxy', '%h 100%% %u');
  t.equal(f.regex.source.includes(' 100% '), true);
  t.same(parseLine(f, '1.2.3.4 100% bob'), { host: '1.2.3.4', login: 'bob' });
  t.same(parseLine(compileFormat('squid', '%>a %%%ru'), '1.2.3.4 %/x'), { host: '1.2.3.4', url: '/x' });
});

t.test('custom forms: %{name}<re>, %{name}, %<re>, %{HEADER}i and %{HEADER}i<re>', async (t) => {
  const f = compileFormat('ezproxy', '%h %{session} %{groups}i %{user-agent}i<[^"]+> %<[0-9]+> %{n_1}<\\d+>');
  t.same(f.groups, ['host', 'session', 'groups', 'user-agent', 'n_1']);
  t.same(parseLine(f, '1.2.3.4 abc-1 Default+x Mozilla 5 (X) 99 42'), undefined, 'default pattern refuses +');
  t.same(parseLine(f, '1.2.3.4 abc-1 Default Mozilla 5 (X) 99 42'), {
    host: '1.2.3.4',
    session: 'abc-1',
    groups: 'Default',
    'user-agent': 'Mozilla 5 (X)',
    n_1: '42',
  });
  const apache = compileFormat('apache', '%h "%{Referer}i<[^"]*>" %{X-Forwarded-For}i');
  t.same(apache.fieldNames, ['host', 'Referer', 'X-Forwarded-For']);
  t.same(parseLine(compileFormat('squid', '%>a %{name}<[a-z]+> %<[0-9]+> %ru'), '1.1.1.1 abc 12 /x'), {
    host: '1.1.1.1',
    name: 'abc',
    url: '/x',
  });
});

t.test('custom regexes: groups counted, escapes kept, nothing interpreted', async (t) => {
  const f = compileFormat('ezproxy', '%h %{s}<\\(\\d+\\)(a)(?<n>b)[(]> %{t}<(c)\\1> %<(?:x|(y))> %u');
  t.same(f.groups, ['host', 's', null, null, 't', null, null, 'login']);
  t.same(f.fieldNames, ['host', 's', 't', 'login']);
  t.same(parseLine(f, '1.2.3.4 (12)ab( cc y bob'), { host: '1.2.3.4', s: '(12)ab(', t: 'cc', login: 'bob' });
  t.equal(parseLine(f, '1.2.3.4 (12)ab( cd y bob'), undefined, 'the backreference points at its own group');

  const escaped = compileFormat('ezproxy', '%h %{paren}<\\([a-z]+\\)> %u');
  t.same(escaped.groups, ['host', 'paren', 'login'], 'escaped parentheses are no group (the reference refused them)');
  t.same(parseLine(escaped, '1.2.3.4 (abc) bob'), { host: '1.2.3.4', paren: '(abc)', login: 'bob' });

  const dollar = compileFormat('ezproxy', "%h %{x}<a\\$&b\\$'c\\$`> %u");
  t.ok(dollar.regex.source.includes("(a\\$&b\\$'c\\$`)"), 'the regex is inserted literally, $& included');
  t.same(parseLine(dollar, "1.2.3.4 a$&b$'c$` bob"), { host: '1.2.3.4', x: "a$&b$'c$`", login: 'bob' });

  const alternation = compileFormat('ezproxy', '%h %<a|b> %u');
  t.equal(parseLine(alternation, '1.2.3.4 a bob')?.login, 'bob');
  t.equal(parseLine(alternation, 'b bob'), undefined, 'an alternation in %<re> stays inside it');

  const look = compileFormat('ezproxy', '%h %{id}<(?<=\\s)[0-9]+(?!x)> %{tag}<(?<tag>[a-z]+)\\k<tag>> %u');
  t.same(look.groups, ['host', 'id', 'tag', null, 'login']);
  t.same(parseLine(look, '1.2.3.4 42 abab bob'), { host: '1.2.3.4', id: '42', tag: 'abab', login: 'bob' });

  const classes = compileFormat('ezproxy', '%{a}<[>)(]+> %{b}<[^<>]+> %u');
  t.same(parseLine(classes, '>)( <x> bob'), undefined);
  t.same(parseLine(classes, '>)( x bob'), { a: '>)(', b: 'x', login: 'bob' }, '> inside a class does not end the regex');
  t.same(compileFormat('ezproxy', '%{a}<x\\>> %u').groups, ['a', 'login'], 'escaped > does not end the regex');
});

t.test('bad custom regexes and names are errors', async (t) => {
  let err = formatError(t, 'ezproxy', '%h %{a}<(x> %u');
  t.equal(err.token, '%{a}<(x>');
  t.equal(err.position, 3);
  t.match(err.message, /does not compile/);
  t.match(err.message, /at character 4/);

  // an escaped end is left as written: only plain characters in reverse order are read leniently
  err = formatError(t, 'apache', '%h %{ress}<[a-z&-\\x20]+>');
  t.match(err.message, /Range out of order.*put it first, last/);

  err = formatError(t, 'ezproxy', '%h %{a}<x> %u %{a}<y>');
  t.match(err.message, /"a" is used twice/);
  t.equal(err.token, '%{a}<y>');
  formatError(t, 'ezproxy', '%{a} %{a}');
  formatError(t, 'ezproxy', '%{a}i %{a}<[0-9]+>');
  t.match(formatError(t, 'ezproxy', '%{a}<(?<n>x)> %{b}<(?<n>y)>').message, /group name "n" is used twice/);
  t.match(formatError(t, 'ezproxy', '%{a}<x\\2>').message, /refers to no group/);
  t.match(formatError(t, 'ezproxy', '%h %{a}<[0-9]+').message, /not closed/);
  t.match(formatError(t, 'ezproxy', '%h %<[>').message, /not closed/);
  t.match(formatError(t, 'ezproxy', '%h %<>').message, /empty regex/);
  t.match(formatError(t, 'ezproxy', '%{__proto__}').message, /__proto__/);
  t.match(formatError(t, 'ezproxy', '"%<.*>"').message, /captures no field/);
  t.match(formatError(t, 'ezproxy', '').message, /empty/);
  t.match(formatError(t, 'ezproxy', '   ').message, /empty/);
});

t.test('absurd input is refused', async (t) => {
  const long = '%h '.repeat(2000);
  const err = formatError(t, 'ezproxy', long);
  t.match(err.message, /6000 characters long; the limit is 4096/);
  t.doesNotThrow(() => compileFormat('ezproxy', '%h' + ' '.repeat(4000)));
  t.throws(() => compileFormat('nginx' as ProxyFamily, '%h'), FormatError);
  t.equal(isProxyFamily('ezproxy'), true);
  t.equal(isProxyFamily('bibliopam'), true);
  t.equal(isProxyFamily('toString'), false);
  t.equal(isProxyFamily('Apache'), false);
});

t.test('literal text is escaped character by character', async (t) => {
  const text = 'a.b*c+d?e(f)g[h]i{j}k|l\\m^n$o/p-q';
  t.equal(new RegExp('^' + escapeLiteral(text) + '$').test(text), true);
  const f = compileFormat('ezproxy', 'SRC_IP=%h|USER=%u|[$&]* (x) {1}');
  t.same(parseLine(f, 'SRC_IP=1.2.3.4|USER=bob|[$&]* (x) {1}'), { host: '1.2.3.4', login: 'bob' });
  t.equal(parseLine(f, 'SRC_IP=1.2.3.4|USER=bob|[$&]* (x) 1'), undefined);
  t.same(parseLine(compileFormat('ezproxy', '%h  %u'), '1.2.3.4  bob'), { host: '1.2.3.4', login: 'bob' });
  t.equal(parseLine(compileFormat('ezproxy', '%h  %u'), '1.2.3.4 bob'), undefined, 'spaces are literal, not \\s+');
});

t.test('Squid member syntax and tokenizing order', async (t) => {
  const padded = compileFormat('squid', '%6tr|%-10un|%"ru|%[un2|%#03>Hs|%{arg}rm|%\'ts');
  t.same(padded.groups, ['responseTime', 'login', 'url', 'login', 'status', 'method', 'timestamp']);
  t.same(parseLine(padded, '    12|bob|/x|   al2|200|GET|1319061710'), {
    responseTime: '12',
    login: 'al',
    url: '/x',
    status: '200',
    method: 'GET',
    timestamp: '1319061710',
  });
  t.ok(padded.regex.source.startsWith('^[ ]*([0-9]+)\\|'), 'members are padded');
  t.ok(padded.regex.source.includes('\\|[ ]*([a-zA-Z0-9@\\.\\-_%=,]+)2\\|'), '%[un2 is %un then the text 2');

  // %<re> whose regex starts with letters (the reference read `%<HT` as an unknown code)
  const http = compileFormat('squid', '%>a %<HTTP/1\\.1> %ru');
  t.same(parseLine(http, '1.2.3.4 HTTP/1.1 /x'), { host: '1.2.3.4', url: '/x' });
  const named = compileFormat('squid', '%>a %{proto}<HTTP/[0-9.]+> %{rest}');
  t.same(parseLine(named, '1.2.3.4 HTTP/1.0 abc'), { host: '1.2.3.4', proto: 'HTTP/1.0', rest: 'abc' });
  // ... but a known code after %< stays that code (real formats need it)
  const inria = compileFormat('squid', '%<A:%lp %>a %ui %[un [%tl] "%rm %ru HTTP/%rv" %>Hs %<st %<.*>');
  t.same(inria.fieldNames, [
    'domain',
    'port',
    'host',
    'identd',
    'login',
    'datetime',
    'method',
    'url',
    'protocolVersion',
    'status',
    'size',
  ]);
  const mines = compileFormat('squid', '%ts.%tu %<st %>a %Ss/%>Hs %tr %rm %ru %[un HIER_DIRECT/%<a %mt');
  t.same(mines.fieldNames.slice(0, 4), ['timestamp', 'subsecond', 'size', 'host']);
  t.same(compileFormat('squid', '%>aX').groups, ['host'], 'longest known code, then text');
  t.same(compileFormat('squid', '%{last-ip}<.*?> %mt').groups, ['last-ip', 'mime']);
  t.same(compileFormat('squid', '%{elapsed}ms %ts').groups, ['elapsed', 'timestamp'], '%{name} then the text ms');
  t.match(formatError(t, 'squid', '%{Referer}>h').message, /unknown Squid directive/);
  t.same(compileFormat('squid', '%tl %{response_time}<[0-9a-z-A-Z]+> %>a').groups, ['datetime', 'response_time', 'host']);
});

t.test('Bibliopam: the standard format, its aliases, and custom ones', async (t) => {
  for (const value of ['standard', 'STANDARD', '', ' standard ']) {
    const f = compileFormat('bibliopam', value);
    t.equal(f.family, 'bibliopam');
    t.equal(f.literal, BIBLIOPAM_STANDARD_FORMAT);
    t.same(f.fieldNames, ['timestamp', 'host', 'size', 'ress-name', 'url', 'status', 'mt', 'profil', 'uid', 'session-id']);
  }
  const line =
    '1358163603,10.1.2.3,4522,"Europresse.com, Biblio",www.europresse.com/webapp/,200,"text/html; charset=utf-8","ETU/M1",a1b2,S0123,';
  t.same(parseLine(compileFormat('bibliopam', 'standard'), line), {
    timestamp: '1358163603',
    host: '10.1.2.3',
    size: '4522',
    'ress-name': 'Europresse.com, Biblio',
    url: 'www.europresse.com/webapp/',
    status: '200',
    mt: 'text/html; charset=utf-8',
    profil: 'ETU/M1',
    uid: 'a1b2',
    'session-id': 'S0123',
  });
  const custom = compileFormat('bibliopam', '%{epoch},%h,%>s,%U');
  t.same(parseLine(custom, '1358163603,10.1.2.3,200,www.x.com/'), {
    epoch: '1358163603',
    host: '10.1.2.3',
    status: '200',
    url: 'www.x.com/',
  });
  t.match(formatError(t, 'bibliopam', '%{epoch},%Q').message, /unknown Bibliopam directive %Q/);
});

t.test('grammar helpers', async (t) => {
  t.equal(findRegexEnd('abc>d', 0), 3);
  t.equal(findRegexEnd('[>]>', 0), 3);
  t.equal(findRegexEnd('\\>>', 0), 2);
  t.equal(findRegexEnd('(?<n>a)>', 0), 7);
  t.equal(findRegexEnd('(?<=a)b>', 0), 7);
  t.equal(findRegexEnd('\\k<n>>', 0), 5);
  t.equal(findRegexEnd('abc', 0), -1);
  t.equal(findRegexEnd('[]>]>', 0), 2, 'JS: [] is an empty class');
  t.same(analyseRegex('(a)(?:b)(?=c)(?!d)(?<=e)(?<!f)(?<g>h)\\(\\)[(]\\1').captures, 2);
  t.same(analyseRegex('(?<one>a)(?<two>b)').names, ['one', 'two']);
  t.same(
    tokenizeFormat('ezproxy', '%h 50%% %{a}<x>').map((tk) => tk.kind),
    ['directive', 'text', 'custom'],
  );
});

t.test('a - between two characters in reverse order inside [ ] is read as the character', async (t) => {
  t.equal(literalReversedHyphens('[a-zA-Z0-9+&- :,.]+'), '[a-zA-Z0-9+&\\- :,.]+');
  t.equal(literalReversedHyphens('[^z-a]'), '[^z\\-a]');
  for (const kept of ['[a-z]', '[a-z-0]', '[ -_]', '[\\d-a]', 'x-a', '[]-a]', '\\[z-a]']) {
    t.equal(literalReversedHyphens(kept), undefined, `${kept}: nothing to change`);
  }
  // the Orléans Bibliopam setting's resource names: "Science & Tech - Revue"
  const format = compileFormat('apache', '%{timestamp}<[0-9]+>,%h,%{ress-name}<[a-zA-Z0-9+&- :,.]+>,%U,%>s');
  t.match(format.notes?.[0], /%\{ress-name\}.*read as the character -/);
  const fields = parseLine(format, '1354230000,192.0.2.1,Science & Tech - Revue,http://www.example.com/x,200');
  t.equal(fields?.['ress-name'], 'Science & Tech - Revue');
  t.equal(compileFormat('apache', '%h %{a}<[a-z]+>').notes, undefined, 'no note when read as written');
});
