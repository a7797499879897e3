import t from 'tap';
import { createSerializer, frameFor, negotiateOutput, OUTPUT_FORMATS } from '../../../src/pipeline/writers/index.js';
import type { OutputKind } from '../../../src/pipeline/writers/types.js';
import { StatusError } from '../../../src/status-codes.js';

t.test('formats: content types and extensions', async (t) => {
  t.same(
    Object.values(OUTPUT_FORMATS).map((f) => [f.kind, f.contentType, f.extension]),
    [
      ['csv', 'text/csv', 'csv'],
      ['tsv', 'text/tab-separated-values', 'txt'],
      ['json', 'application/json', 'json'],
      ['jsonstream', 'application/json', 'json'],
      ['log', 'text/x-log', 'log'],
    ],
  );
});

t.test('Accept negotiation', async (t) => {
  const table: [string | undefined, OutputKind][] = [
    // the reference's exact values
    [undefined, 'csv'],
    ['text/csv', 'csv'],
    ['*/*', 'csv'],
    ['text/tab-separated-values', 'tsv'],
    ['application/json', 'json'],
    ['application/jsonstream', 'jsonstream'],
    // blank is absent
    ['', 'csv'],
    ['  ', 'csv'],
    // case, spaces, parameters
    ['TEXT/CSV', 'csv'],
    ['Application/JSON', 'json'],
    ['text/csv; charset=utf-8', 'csv'],
    ['application/json;charset="utf-8"', 'json'],
    ['text/tab-separated-values ; header=present', 'tsv'],
    // lists: quality, then the client's order, then CSV, TSV, JSON, jsonstream
    ['text/csv, */*', 'csv'],
    ['application/json, */*', 'json'],
    ['*/*, application/json', 'csv'],
    ['*/*;q=0.5, application/json', 'json'],
    ['text/csv;q=0.5, application/jsonstream', 'jsonstream'],
    ['text/csv;q=0.9, text/tab-separated-values;q=0.91', 'tsv'],
    ['text/*', 'csv'],
    ['application/*', 'json'],
    ['text/html, application/xhtml+xml, application/xml;q=0.9, */*;q=0.8', 'csv'],
    ['text/html,application/jsonstream;q=0.2', 'jsonstream'],
    ['application/*;q=0.3, text/*;q=0.2', 'json'],
    ['*/*, text/csv;q=0', 'tsv'],
    ['application/json;q=0, */*', 'csv'],
    ['text/csv;q=0.5;foo=bar, application/json;q=0.4', 'csv'],
    ['application/json; profile="a,b", text/csv;q=0.9', 'json'],
    // malformed ranges are ignored
    ['garbage, text/tab-separated-values', 'tsv'],
    ['text/csv;q=2, application/json', 'json'],
    ['text/csv;q=abc, application/json;q=0.1', 'json'],
    ['text/csv,,', 'csv'],
  ];
  for (const [accept, kind] of table) {
    t.equal(negotiateOutput(accept, false).kind, kind, `Accept: ${JSON.stringify(accept)}`);
  }
});

t.test('nothing acceptable: 4006', async (t) => {
  for (const accept of ['text/html', 'application/xml, text/plain', 'text/csv;q=0', '*/*;q=0', 'garbage', 'text', '*/csv', 'application/x-ndjson', 'text/x-log']) {
    let caught: unknown;
    try {
      negotiateOutput(accept, false);
    } catch (err) {
      caught = err;
    }
    t.ok(caught instanceof StatusError, `Accept: ${accept}`);
    t.match(caught, { code: 4006, http: 406 });
    t.ok((caught as Error).message.includes(accept), 'the detail quotes the header');
  }
});

t.test('4006 for ranges that could not be read says so', async (t) => {
  t.throws(() => negotiateOutput('text/csv;q=abc', false), { code: 4006, message: /not read, as malformed.*"text\/csv;q=abc"/ });
  t.throws(() => negotiateOutput('text/html', false), { message: /^(?!.*malformed)/ }, 'a well-formed refusal does not mention it');
});

t.test('Clean-Only ignores Accept', async (t) => {
  t.equal(negotiateOutput(undefined, true), OUTPUT_FORMATS.log);
  t.equal(negotiateOutput('application/json', true), OUTPUT_FORMATS.log);
  t.equal(negotiateOutput('text/html', true).contentType, 'text/x-log', 'not even an unacceptable one');
});

t.test('serializer and frame for each kind', async (t) => {
  const ec = { host: 'h;1', size: 3, _line: 'raw line' };
  const columns = ['host', 'size'];
  const expected: Record<OutputKind, [string, string, string, string, string]> = {
    csv: ['"h;1";3', 'host;size\n', '', '\n', ''],
    tsv: ['h;1\t3', 'host\tsize\n', '', '\n', ''],
    // `_line` is set in Clean-Only mode only (log output); elsewhere a field so named is data
    json: ['{\n  "host": "h;1",\n  "size": 3,\n  "_line": "raw line"\n}', '[', ',', '', ']'],
    jsonstream: ['{"host":"h;1","size":3,"_line":"raw line"}', '', '\n', '', ''],
    log: ['raw line', '', '', '\n', ''],
  };
  for (const [kind, [text, head, separator, terminator, tail]] of Object.entries(expected) as [OutputKind, [string, string, string, string, string]][]) {
    t.equal(createSerializer(kind, columns).serialize(ec), text, `${kind} text`);
    const frame = frameFor(kind, columns);
    t.same([frame.head, frame.separator, frame.terminator ?? '', frame.tail], [head, separator, terminator, tail], `${kind} frame`);
    const marker = frame.errorMarker(5000, 'Internal error');
    if (kind === 'jsonstream') t.equal(marker, '\n{"error":{"code":5000,"message":"Internal error"}}');
    else if (kind === 'json') t.equal(marker, '\n#logsift-error 5000 Internal error\n', `${kind} marker`);
    else t.equal(marker, '#logsift-error 5000 Internal error\n', `${kind} marker (after the last row's newline)`);
  }
});
