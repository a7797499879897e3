import t from 'tap';
import { byteRange, download, fileEtag } from '../src/file-download.js';

const file = { size: 1000, mtimeMs: Date.UTC(2026, 0, 2, 3, 4, 5, 678) };
const etag = fileEtag(file);
const lastModified = 'Fri, 02 Jan 2026 03:04:05 GMT';

t.test('byte ranges', async (t) => {
  t.same(byteRange('bytes=0-99', 1000), { start: 0, end: 99 });
  t.same(byteRange('bytes=900-', 1000), { start: 900, end: 999 }, 'curl -C - resuming at 900');
  t.same(byteRange('bytes=-100', 1000), { start: 900, end: 999 }, 'the last 100 bytes');
  t.same(byteRange('bytes=-5000', 1000), { start: 0, end: 999 });
  t.same(byteRange('bytes=990-5000', 1000), { start: 990, end: 999 }, 'an end past the file is the last byte');
  t.equal(byteRange('bytes=1000-', 1000), 'unsatisfiable', 'resuming a complete download');
  t.equal(byteRange('bytes=0-', 0), 'unsatisfiable', 'an empty file has no byte');
  t.equal(byteRange('bytes=-0', 1000), 'unsatisfiable');
  for (const ignored of ['items=0-9', 'bytes=9-0', 'bytes=0-1,5-6', 'bytes=-', 'bytes=a-b']) t.equal(byteRange(ignored, 1000), 'ignore', ignored);
});

t.test('the answer to validators and ranges', async (t) => {
  const whole = download('GET', {}, file);
  t.equal(whole.status, 200);
  t.same(whole.headers, { ETag: etag, 'Last-Modified': lastModified, 'Accept-Ranges': 'bytes' });
  t.match(download('GET', { range: 'bytes=100-' }, file), { status: 206, start: 100, end: 999, headers: { 'Content-Range': 'bytes 100-999/1000' } });
  t.match(download('GET', { range: 'bytes=1000-' }, file), { status: 416, headers: { 'Content-Range': 'bytes */1000' } });
  t.equal(download('HEAD', { range: 'bytes=100-' }, file).status, 200, 'Range is for GET only');
  t.equal(download('GET', { 'if-none-match': etag }, file).status, 304);
  t.equal(download('GET', { 'if-none-match': `"other", W/${etag}` }, file).status, 304, 'weak comparison');
  t.equal(download('GET', { 'if-none-match': '"other"' }, file).status, 200);
  t.equal(download('GET', { 'if-modified-since': lastModified }, file).status, 304);
  t.equal(download('GET', { 'if-modified-since': 'Fri, 02 Jan 2026 03:04:04 GMT' }, file).status, 200);
  t.equal(download('GET', { 'if-none-match': '"other"', 'if-modified-since': lastModified }, file).status, 200, 'If-None-Match wins over If-Modified-Since');
  t.equal(download('GET', { 'if-modified-since': 'yesterday' }, file).status, 200, 'a date that does not parse is ignored');
  t.equal(download('GET', { 'if-match': '"other"' }, file).status, 412);
  t.equal(download('GET', { 'if-match': `W/${etag}` }, file).status, 412, 'strong comparison');
  t.equal(download('GET', { 'if-match': etag, range: 'bytes=0-0' }, file).status, 206);
  t.equal(download('GET', { 'if-unmodified-since': 'Fri, 02 Jan 2026 03:04:04 GMT' }, file).status, 412);
  t.equal(download('GET', { 'if-range': etag, range: 'bytes=10-19' }, file).status, 206, 'the client holds this version');
  t.equal(download('GET', { 'if-range': lastModified, range: 'bytes=10-19' }, file).status, 206);
  t.equal(download('GET', { 'if-range': '"older"', range: 'bytes=10-19' }, file).status, 200, 'another version: the whole file');
  t.not(fileEtag({ size: 1001, mtimeMs: file.mtimeMs }), etag, 'a file that grew is another version');
});
