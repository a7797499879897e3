import { createHmac } from 'node:crypto';
import t from 'tap';
import type { AccessEvent } from '../../../src/pipeline/event.js';
import { createCrypter } from '../../../src/pipeline/stages/anonymizer.js';
import { StatusError } from '../../../src/status-codes.js';

t.test('known HMAC-SHA1 value (RFC 2202, test case 2)', async (t) => {
  const crypter = createCrypter({ fields: 'login', salt: 'Jefe' });
  t.ok(crypter);
  const ec: AccessEvent = { login: 'what do ya want for nothing?', host: '1.2.3.4' };
  crypter!.crypt(ec);
  t.equal(ec.login, 'effcdf6ae5eb2fa2d27416d5f184df9c259a7c79');
  t.equal(ec.host, '1.2.3.4', 'only the listed fields');
});

t.test('defaults: host and login, sha1, random salt', async (t) => {
  const a = createCrypter({})!;
  const b = createCrypter({})!;
  t.same(a.fields, ['host', 'login']);
  const ea: AccessEvent = { host: '1.2.3.4', login: 'JOHN', url: 'http://x/' };
  const eb: AccessEvent = { ...ea };
  a.crypt(ea);
  b.crypt(eb);
  t.match(ea.host, /^[0-9a-f]{40}$/);
  t.match(ea.login, /^[0-9a-f]{40}$/);
  t.equal(ea.url, 'http://x/');
  t.not(ea.host, eb.host, 'two jobs without a salt give different hashes');
  t.same(createCrypter({ fields: '', algorithm: ' ' })!.fields, ['host', 'login'], 'blank headers are absent');
});

t.test('same salt, same hashes; UTF-8 values; numbers as text; empty and absent untouched', async (t) => {
  const one = createCrypter({ fields: ' host , login,,size ', salt: 'sel', algorithm: 'sha256' })!;
  const two = createCrypter({ fields: 'host,login,size', salt: 'sel', algorithm: 'SHA256' })!;
  t.same(one.fields, ['host', 'login', 'size'], 'names trimmed, empty items dropped');
  t.ok(Object.isFrozen(one.fields));
  const e1: AccessEvent = { host: '1.2.3.4', login: 'Zoé', size: 444 };
  const e2: AccessEvent = { host: '1.2.3.4', login: 'Zoé', size: 444 };
  one.crypt(e1);
  two.crypt(e2);
  t.same(e1, e2);
  t.equal(e1.login, createHmac('sha256', 'sel').update(Buffer.from('Zoé', 'utf8')).digest('hex'));
  t.equal(e1.size, createHmac('sha256', 'sel').update('444').digest('hex'));
  // repeated values (from the cache) give the same hash
  const e3: AccessEvent = { host: '1.2.3.4', login: '', size: undefined };
  one.crypt(e3);
  t.equal(e3.host, e1.host);
  t.equal(e3.login, '', 'empty value untouched');
  t.equal(e3.size, undefined);
  const e4: AccessEvent = {};
  one.crypt(e4);
  t.same(e4, {}, 'absent fields stay absent');
  // other algorithms and an empty salt
  const md5 = createCrypter({ fields: 'host', salt: '', algorithm: 'md5' })!;
  const e5: AccessEvent = { host: 'h' };
  md5.crypt(e5);
  t.equal(e5.host, createHmac('md5', '').update('h').digest('hex'));
});

t.test('disabled', async (t) => {
  // `none,` and `none, ` are what a script joining a list, or two headers of which one is empty, send
  for (const off of ['disabled', 'DISABLED', ' Disabled ', 'none', 'None', ',', ' , ', 'none,', ',none', 'none, ', 'Disabled,', 'none,none']) {
    t.equal(createCrypter({ fields: off }), undefined, JSON.stringify(off));
  }
  for (const both of ['disabled,host', 'host, none']) {
    t.throws(() => createCrypter({ fields: both }), { code: 4032, message: /turns crypting off and stands alone.*"host"/ }, `${both}: two wishes at once, refused`);
  }
});

t.test('unknown algorithm: 4004 at creation, naming it', async (t) => {
  for (const algorithm of ['sha-unknown', 'rot13', 'md55']) {
    let caught: unknown;
    try {
      createCrypter({ algorithm });
    } catch (err) {
      caught = err;
    }
    t.ok(caught instanceof StatusError, algorithm);
    t.match(caught, { code: 4004, http: 400 });
    t.match((caught as Error).message, algorithm);
  }
  // checked even when the salt is given, and not when crypting is off
  t.throws(() => createCrypter({ fields: 'host', salt: 's', algorithm: 'nope' }));
  t.equal(createCrypter({ fields: 'disabled', algorithm: 'nope' }), undefined);
});

t.test('crypting host crypts geoip-host, the same address, too', async (t) => {
  const crypter = createCrypter({ salt: 's' })!;
  const ec: AccessEvent = { host: '66.65.65.107', 'geoip-host': '66.65.65.107', 'geoip-country': 'US' };
  crypter.crypt(ec);
  t.match(ec['geoip-host'], /^[0-9a-f]{40}$/);
  t.equal(ec['geoip-host'], ec.host, 'the same hash as the address alone');
  t.equal(ec['geoip-country'], 'US');
  const loginOnly = { host: '66.65.65.107', 'geoip-host': '66.65.65.107' };
  createCrypter({ fields: 'login', salt: 's' })!.crypt(loginOnly);
  t.equal(loginOnly['geoip-host'], '66.65.65.107', 'host left clear: geoip-host too');
});

t.test('a crypted field named like an inherited property (constructor) is absent: nothing added', async (t) => {
  const crypter = createCrypter({ fields: 'constructor,toString,login', salt: 's' })!;
  const ec: Record<string, string | number | undefined> = { login: 'bob' };
  crypter.crypt(ec);
  t.same(Object.keys(ec), ['login']);
  t.not(ec.login, 'bob');
});
