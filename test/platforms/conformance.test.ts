import t from 'tap';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  compareFields, parseConformanceCsv, readConformanceTree, runConformance, runRow, splitCsv,
} from '../../src/platforms/conformance.js';
import { readPlatformSources } from '../../src/platforms/loader.js';
import { compileRules } from '../../src/platforms/rules/compile.js';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const cacheDir = join(tmpdir(), 'logsift-test-hooks');
const parse = (text: string) => parseConformanceCsv(text, 'p', 'p.csv');

t.test('CSV records: semicolons, quotes, CRLF, the line each record starts on', async (t) => {
  t.same(splitCsv('a;b\r\n"x;y";"say ""hi"""\n"two\nlines";z'), [
    { line: 1, cells: ['a', 'b'] },
    { line: 2, cells: ['x;y', 'say "hi"'] },
    { line: 3, cells: ['two\nlines', 'z'] },
  ]);
  t.same(splitCsv('a;;\n'), [{ line: 1, cells: ['a', '', ''] }], 'empty cells kept, no record after the last line end');
});

t.test('header names trimmed, BOM removed, blank lines skipped (before the header too)', async (t) => {
  const rows = parse('\uFEFF\n\n in-url ; out-rtype \n\nhttp://x.org/a;ARTICLE\n;;\n');
  t.equal(rows.length, 1, 'a line of empty cells is not a row');
  t.same(rows[0].input, { url: 'http://x.org/a' });
  t.same(rows[0].expected, { rtype: 'ARTICLE' });
  t.equal(rows[0].line, 5, 'line numbers count the blank lines');
  t.same(parse(''), [], 'an empty file has no rows');
  t.same(parse('in-url;out-rtype\n'), [], 'a header-only file has no rows');
});

t.test('empty cell = absent; no output = expects no match; extra cells ignored; values kept as written', async (t) => {
  const [a, b] = parse('out-unitid;out-vol;in-size;in-url\n;007; 12 ;http://x.org/a;surplus\n;;;http://x.org/b\n');
  t.same(a.expected, { vol: '007' }, 'no unitid: it must be absent');
  t.same(a.input, { size: ' 12 ', url: 'http://x.org/a' }, 'cells are not trimmed; the surplus cell is dropped');
  t.same(b.expected, {}, 'a row without output expects no match');
});

t.test('a repeated column: only its last occurrence is read', async (t) => {
  const [row] = parse('out-issue;out-vol;out-issue;in-url\n1;2;3;http://x.org/a\n');
  t.same(row.expected, { issue: '3', vol: '2' });
});

t.test('fields compared as strings; missing, different and extra fields fail', async (t) => {
  t.same(compareFields({ vol: '7' }, { vol: '7' }), []);
  t.same(compareFields({ vol: '7' }, { vol: 7 as unknown as string }), [], 'a number equals its text');
  t.same(compareFields({ vol: '7' }, { vol: '07' }), ['vol: expected "7", got "07"']);
  t.same(compareFields({ vol: '7' }, {}), ['vol: expected "7", missing']);
  t.same(compareFields({}, { rtype: 'ARTICLE' }), ['rtype: not expected, got "ARTICLE"']);
  t.same(compareFields({}, undefined), [], 'no output expected, none produced');
});

t.test('runRow: a row of a platform that is not loaded fails; the event fields reach the rules', async (t) => {
  const { match } = compileRules({ rules: [{ when: { field: { size: { gt: 0 } } }, set: { rtype: 'X' } }] }, {});
  const platform = { name: 'p', manifest: { name: 'p', longname: 'p', domains: [] }, kind: 'rules' as const, priority: 0, ruleCount: 1, match };
  const row = { platform: 'p', file: 'p.csv', line: 2, input: { url: 'http://x.org/', size: '5' }, expected: { rtype: 'X' } };
  t.ok(runRow(row, platform).ok);
  t.ok(runRow({ ...row, input: { url: 'http://x.org/', size: '0' }, expected: {} }, platform).ok);
  t.same(runRow(row, undefined).differences, ['platform p is not loaded']);
});

t.test('a fixture tree: every rule of the reader, run through its platforms', async (t) => {
  const rows = await readConformanceTree(fixture('conformance'));
  t.same(rows.map((r) => `${r.file}:${r.line}`), [
    'demo/test/demo.2024-01-01.csv:3', 'demo/test/demo.2024-01-01.csv:5', 'demo/test/demo.2024-01-01.csv:6',
    'demo/test/demo.2024-01-01.csv:7', 'demo/test/demo.2024-01-01.csv:8', 'plain/test/plain.csv:2',
  ]);
  t.same(rows[1].expected, { rtype: 'SEARCH', mime: 'HTML', note: 'a;b c' }, 'a quoted cell holds a semicolon');
  const report = await runConformance({ platformsDirs: [fixture('conformance')], csvDir: fixture('conformance'), cacheDir });
  t.equal(report.set.platforms.size, 2);
  t.same(report.failures.map((f) => f.differences), []);
  t.equal(report.passed, 6);
});

t.test('failing rows: each says what differs, with its file and line', async (t) => {
  const report = await runConformance({ platformsDirs: [fixture('conformance')], csvDir: fixture('conformance-failing'), cacheDir });
  t.equal(report.passed, 1);
  t.same(report.failures.map((f) => [f.row.line, f.differences]), [
    [2, ['vol: expected "7", got "07"']],
    [3, ['vol: not expected, got "1"']],
    [4, ['title_id: not expected, got "jcp"']],
    [5, ['unitid: not expected, got "127"', 'rtype: not expected, got "ARTICLE"', 'mime: not expected, got "HTML"']],
    [7, ['vol: expected "3", missing']],
  ]);
});

t.test('community parser.js folders run through the same runner; several folders, the first of a name wins', async (t) => {
  const report = await runConformance({ platformsDirs: [fixture('ezpaarse')], csvDir: fixture('ezpaarse'), cacheDir });
  t.same([...report.set.platforms.values()].map((p) => [p.name, p.kind]), [['demobooks', 'ezpaarse'], ['demojournal', 'ezpaarse']]);
  t.equal(report.passed, 7);
  t.same(report.failures, []);
  const both = await readPlatformSources([fixture('conformance'), fixture('ezpaarse'), fixture('ezpaarse')], cacheDir);
  t.same(both.sources.map((s) => s.manifest.name), ['demo', 'plain', 'demobooks', 'demojournal']);
  t.same(both.shadowed, [join(fixture('ezpaarse'), 'demobooks'), join(fixture('ezpaarse'), 'demojournal')]);
  t.same(both.problems, [], 'the .lib folder and package.json are not platforms');
});
