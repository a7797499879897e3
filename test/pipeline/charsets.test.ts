import t from 'tap';
import iconv from 'iconv-lite';
import { utf16ByBom, utf8OrMarkedUtf16 } from '../../src/pipeline/charsets.js';

async function text(chunks: Uint8Array[], told?: string[]): Promise<string> {
  const out: Buffer[] = [];
  for await (const c of utf8OrMarkedUtf16((async function* () { yield* chunks; })(), (cs) => told?.push(cs))) out.push(Buffer.from(c));
  return Buffer.concat(out).toString('utf8');
}

t.test('utf16ByBom: only the two UTF-16 marks', async (t) => {
  t.equal(utf16ByBom(Buffer.from([0xff, 0xfe, 0x61, 0])), 'utf-16le');
  t.equal(utf16ByBom(Buffer.from([0xfe, 0xff, 0, 0x61])), 'utf-16be');
  t.equal(utf16ByBom(Buffer.from([0xef, 0xbb, 0xbf])), undefined, 'the UTF-8 mark is not one');
  t.equal(utf16ByBom(Buffer.from([0xff])), undefined);
  t.equal(utf16ByBom(Buffer.from('ab')), undefined);
});

t.test('utf8OrMarkedUtf16: UTF-8 as it is, marked UTF-16 transcoded, the mark split over chunks', async (t) => {
  t.equal(await text([Buffer.from('é\n'), Buffer.from('b\n')]), 'é\nb\n', 'UTF-8 untouched');
  t.equal(await text([]), '', 'nothing');
  t.equal(await text([Buffer.from('a')]), 'a', 'one byte');
  const told: string[] = [];
  const le = Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode('josé\r\nb\n', 'utf-16le')]);
  t.equal(await text([le.subarray(0, 1), le.subarray(1, 5), le.subarray(5)], told), 'josé\r\nb\n', 'the mark dropped');
  t.same(told, ['utf-16le']);
  const be = Buffer.concat([Buffer.from([0xfe, 0xff]), iconv.encode('x\n', 'utf-16be')]);
  t.equal(await text([be]), 'x\n');
});

t.test('utf8OrMarkedUtf16: a consumer that stops early stops the source', async (t) => {
  let returned = false;
  const source = (async function* () {
    try {
      yield Buffer.from('a\n');
      yield Buffer.from('b\n');
    } finally {
      returned = true;
    }
  })();
  for await (const _ of utf8OrMarkedUtf16(source)) break;
  t.ok(returned);
});
