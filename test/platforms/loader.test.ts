import t from 'tap';
import { join } from 'node:path';
import { readPlatformSources } from '../../src/platforms/loader.js';

const manifest = (name: string) => JSON.stringify({ name, longname: name, domains: [`${name}.example.org`] });
const rules = (when: string, extra = '') => `format: 1\nrules:\n  - when: { ${when} }\n    set: { rtype: ARTICLE }${extra}\n`;

t.test('a folder whose rules do not compile is reported and left out, like one that cannot be read', async (t) => {
  const root = t.testdir({
    good: { 'manifest.json': manifest('good'), 'rules.yaml': rules("path: '^/a/(?<id>[0-9]+)$'") },
    badregex: { 'manifest.json': manifest('badregex'), 'rules.yaml': rules("path: '^/(unclosed'") },
    badkey: { 'manifest.json': manifest('badkey'), 'rules.yaml': rules("path: '^/a'", '\n    sett: { mime: PDF }') },
    nohook: { 'manifest.json': manifest('nohook'), 'rules.yaml': rules("path: '^/a'", '\n    hook: missing') },
    badyaml: { 'manifest.json': manifest('badyaml'), 'rules.yaml': 'format: 1\nrules: [ { when: \n' },
  });
  const { sources, problems } = await readPlatformSources(root, join(root, '.cache'));
  t.same(sources.map((s) => s.manifest.name), ['good'], 'only the platform that compiles');
  const byFolder = Object.fromEntries(problems.map((p) => [p.folder.slice(root.length + 1), p.message]));
  t.same(Object.keys(byFolder).sort(), ['badkey', 'badregex', 'badyaml', 'nohook']);
  t.match(byFolder.badregex, /^rules\[0\]\.when\.path: invalid regular expression/);
  t.match(byFolder.badkey, /unknown key "sett"/);
  t.match(byFolder.nohook, /no hook "missing"/);
});
