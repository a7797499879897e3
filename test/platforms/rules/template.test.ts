import t from 'tap';
import { parseTemplate, templateVariables } from '../../../src/platforms/rules/template.js';
import { compileTemplate } from '../../../src/platforms/rules/compile.js';
import { RuleError } from '../../../src/platforms/rules/transforms.js';

const vars: Record<string, string | string[] | undefined> = {
  id: 'S0378437124001234', issn: '03784371', isbn: '978-2-7381-1156-2', doi: '10.1002/anie.201209878',
  list: ['a', 'b', 'c'], empty: '', code: 'ldpd', path: '/a/b/c.pdf', enc: 'a%20b', b64: 'aGVsbG8gd29ybGQ=',
  embedded: 'http://x.org/ps/i.do?docId=GALE%7CCX1&p=2', pad: '7',
};
const resolve = (n: string) => vars[n];
const ctx = { tables: { codes: { ldpd: 'Law Data', other: 'X' } } };
const ev = (tpl: string) => compileTemplate(tpl)(resolve, ctx);

t.test('literal text and placeholders, all or nothing', async (t) => {
  t.equal(ev('ARTICLE'), 'ARTICLE');
  t.equal(ev('{id}'), 'S0378437124001234');
  t.equal(ev('10.1016/{id}'), '10.1016/S0378437124001234');
  t.equal(ev('{id}/{missing}'), undefined, 'one undefined placeholder makes the whole value undefined');
  t.equal(ev('{empty}'), undefined, 'empty counts as undefined');
  t.equal(ev('{{literal}}'), '{literal}');
  t.same(templateVariables('{a}-{b|upper}'), ['a', 'b']);
});

t.test('transforms', async (t) => {
  t.equal(ev('{code|upper}'), 'LDPD');
  t.equal(ev('{id|lower}'), 's0378437124001234');
  t.equal(ev('{id|slice:1:9}'), '03784371');
  t.equal(ev('{id|slice:-4}'), '1234');
  t.equal(ev('{issn|issn}'), '0378-4371');
  t.equal(ev('{code|issn}'), undefined, 'not 8 characters: undefined');
  t.equal(ev('{isbn|isbn}'), '9782738111562');
  t.equal(ev('{isbn|compact}'), '9782738111562');
  t.equal(ev('{doi|split:/:1}'), 'anie.201209878');
  t.equal(ev('{doi|split:.:-1}'), '201209878');
  t.equal(ev('{doi|replace:"[./]":"_"}'), '10_1002_anie_201209878');
  t.equal(ev('{path|match:"([^/]+)\\.pdf$"}'), 'c');
  t.equal(ev('{path|match:"(?<name>[^/]+)\\.(?<ext>pdf)$":ext}'), 'pdf');
  t.equal(ev('{path|match:"nothing"}'), undefined);
  t.equal(ev('{enc|decode}'), 'a b');
  t.equal(ev('{b64|base64}'), 'hello world');
  t.equal(ev('{missing|default:none}'), 'none');
  t.equal(ev('{missing|or:code}'), 'ldpd');
  t.equal(ev('{code|lookup:codes}'), 'Law Data');
  t.equal(ev('{id|lookup:codes:unknown}'), 'unknown');
  t.equal(ev('{embedded|query:docId}'), 'GALE|CX1');
  t.equal(ev('{embedded|urlpart:pathname}'), '/ps/i.do');
  t.equal(ev('{list}'), 'a', 'a repeated parameter reads as its first value');
  t.equal(ev('{list|last}'), 'c');
  t.equal(ev('{list|join:"|"}'), 'a|b|c');
  t.equal(ev('{pad|pad:3}'), '007');
  t.equal(ev('{pad|pad:3|int}'), '7');
});

t.test('syntax errors name the template', async (t) => {
  t.throws(() => parseTemplate('{id'), RuleError);
  t.throws(() => parseTemplate('{id|nosuch}'), /unknown transform/);
  t.throws(() => parseTemplate('a}b'), /unmatched/);
  t.throws(() => parseTemplate('{id|replace:"(":"x"}'), /invalid regular expression/);
  t.throws(() => parseTemplate('{id|slice:a}'), /not an integer/);
});

t.test('{x?}: an optional placeholder gives empty text instead of undefining the template', async (t) => {
  t.equal(ev('{pad}/{missing?}/{code}'), '7//ldpd', 'the `107//32` form without a placeholder trick');
  t.equal(ev('{pad}/{empty?}'), '7/', 'empty counts like undefined');
  t.equal(ev('{code?|upper}-{missing?|upper}'), 'LDPD-', 'transforms apply as usual');
  t.equal(ev('{missing?}'), undefined, 'a template that comes out empty is still not set');
  t.equal(ev('{missing?}/{gone}'), undefined, 'a required placeholder still decides');
  t.same(templateVariables('{a?}-{b}'), ['a', 'b']);
  t.throws(() => parseTemplate('{a??}'), RuleError);
});
