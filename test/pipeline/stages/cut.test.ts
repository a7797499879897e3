import t from 'tap';
import { cutStage, ExtractError, parseExtract } from '../../../src/pipeline/stages/cut.js';
import type { AccessEvent } from '../../../src/pipeline/event.js';

const flags = () => ({ denied: false, pkbMiss: false });
function cut(header: string, ec: AccessEvent): AccessEvent {
  cutStage(parseExtract(header)).run(ec, flags());
  return ec;
}

t.test('a regex: its groups, in the order of the fields (reference cut-test)', async (t) => {
  t.match(cut('login => /^(\\w+)\\w_\\w(\\w+)$/i => firstname,lastname', { login: 'THEODORE_MCCLURE' }), { firstname: 'THEODOR', lastname: 'CCLURE' });
  // fewer fields than groups: the first groups; spaces around the arrows and names ignored
  t.same(cut('login=>/(.*)@([^.]*)\\.?([^.]*)/=> identifiant, domainName', { login: 'jdoe@lab.psl' }), { login: 'jdoe@lab.psl', identifiant: 'jdoe', domainName: 'lab' });
  // no match, no source, or a group that did not take part: nothing set
  t.same(cut('login => /^(x+)_(y+)$/ => a,b', { login: 'nope' }), { login: 'nope' });
  t.same(cut('login => /^(x+)_(y+)$/ => a,b', { url: 'u' }), { url: 'u' });
  t.same(cut('login => /^(a)|(b)$/ => first,second', { login: 'a' }), { login: 'a', first: 'a' });
});

t.test('split: around a string or a regex (reference cut-test)', async (t) => {
  t.match(cut('login => split(_) => firstname,lastname', { login: 'THEODORE_MCCLURE' }), { firstname: 'THEODORE', lastname: 'MCCLURE' });
  t.match(cut('login => split(/[od_]+/i) => first,second,third', { login: 'THEODORE_MCCLURE' }), { first: 'THE', second: 'RE', third: 'MCCLURE' });
  // more fields than parts: the others are not set; a regex separator is not a literal one
  t.same(cut('login => split(@) => c1,c2,c3', { login: 'a@b' }), { login: 'a@b', c1: 'a', c2: 'b' });
  t.same(cut('login => split(.) => c1,c2', { login: 'a.b' }), { login: 'a.b', c1: 'a', c2: 'b' }, 'a dot is a dot');
});

t.test('the destination may be an existing field, the source any field', async (t) => {
  t.same(cut('istex-id=>/^(ABES.*)/=>abes-id', { 'istex-id': 'ABES-123' }), { 'istex-id': 'ABES-123', 'abes-id': 'ABES-123' });
  t.same(cut('login => split(_) => login', { login: 'a_b' }), { login: 'a' });
});

t.test('malformed expressions are refused, saying what to write', async (t) => {
  for (const bad of [
    'login => invalid => firstname', // reference cut-test
    'login invalid => firstname', // reference cut-test
    'login => /a/ =>', 'login => /a/ => a,,b', 'login => /a/ => a b', '=> /a/ => a',
    'login => /(/ => a', 'login => /a/g => a', 'login => split() => a', 'login => /a => a',
    'login => split(_) => a,__proto__', // would set the event's prototype, not a field
  ]) {
    let error: unknown;
    try { parseExtract(bad); } catch (err) { error = err; }
    t.ok(error instanceof ExtractError && /invalid extract expression/.test(error.message), bad);
  }
  t.throws(() => parseExtract('login => nothing => a'), /source => \/regex\/flags => field1,field2/);
  t.throws(() => parseExtract('login => /(/ => a'), /Invalid regular expression/);
});

t.test('the spec is plain data (it goes to the workers with each batch)', async (t) => {
  const spec = parseExtract('login => split(/_+/i) => a,b');
  t.same(structuredClone(spec), spec);
  t.same(spec, { source: 'login', kind: 'split', pattern: '_+', flags: 'i', literal: false, fields: ['a', 'b'] });
});
