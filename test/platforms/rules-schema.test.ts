import t from 'tap';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { PROJECT_ROOT } from '../../src/paths.js';
import { compileRules } from '../../src/platforms/rules/compile.js';
import { RuleError } from '../../src/platforms/rules/transforms.js';
import type { RulesFileSpec } from '../../src/platforms/rules/types.js';

const PLATFORMS = join(PROJECT_ROOT, 'repos', 'platforms');
const schema = JSON.parse(readFileSync(join(PLATFORMS, 'rules.schema.json'), 'utf8'));
const validate = new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true }).compile(schema);
const errors = () => (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath} ${e.message}`);

// The schema is for editors; the compiler stays the real validator. They must agree on every
// platform's rules (parsed as the loader parses them, YAML merge keys resolved).
t.test('every rules.yaml validates against rules.schema.json', async (t) => {
  let checked = 0;
  for (const name of readdirSync(PLATFORMS).sort()) {
    const file = join(PLATFORMS, name, 'rules.yaml');
    if (!existsSync(file)) continue;
    const rules = parseYaml(readFileSync(file, 'utf8'), { merge: true });
    if (!validate(rules)) t.fail(`${name}: ${errors().join('; ')}`);
    checked++;
  }
  t.ok(checked > 600, `${checked} rules files checked`);
});

t.test('the schema rejects what the compiler rejects', async (t) => {
  const bad: Array<[string, unknown]> = [
    ['no rules', { format: 1 }],
    ['unknown top-level key', { rules: [], extra: 1 }],
    ['unknown rule key', { rules: [{ when: { path: 'x' }, set: { a: 'b' }, sett: {} }] }],
    ['a rule that does nothing', { rules: [{ when: { path: 'x' } }] }],
    ['unknown condition', { rules: [{ when: { paths: 'x' }, set: { a: 'b' } }] }],
    ['flag g', { rules: [{ when: { path: { re: 'x', flags: 'g' } }, set: { a: 'b' } }] }],
    ['unknown comparison', { rules: [{ when: { field: { size: { gtt: 1 } } }, set: { a: 'b' } }] }],
    ['map without from', { rules: [{ set: { a: { map: { x: 'y' } } } }] }],
    ['format 2', { format: 2, rules: [] }],
  ];
  for (const [why, doc] of bad) {
    t.notOk(validate(doc), `schema: ${why}`);
    t.throws(() => compileRules(doc as RulesFileSpec, {}), RuleError, `compiler: ${why}`);
  }
  t.ok(validate({
    format: 1,
    rules: [{
      when: { search: true, hash: false, queryi: { bookid: '^[0-9]+$' }, field: { size: { gte: 1, in: [1, '2'] } }, any: [{ path: 'a' }], not: { host: { re: 'x', flags: 'i' } } },
      let: { v: '{query.a?}' },
      set: { rtype: 'ARTICLE', n: 1, m: { from: '{v}', map: { a: 'A', b: 2 }, default: 'Z', regex: false } },
      unset: ['x'],
      rules: [{ ignore: true }, { continue: true, hook: 'h' }],
    }],
  }), errors().join('; '));
});
