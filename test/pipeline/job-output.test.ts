import t from 'tap';
import { headerSafe } from '../../src/pipeline/job-output.js';

t.test('headerSafe keeps a message readable on one line of visible ASCII', async (t) => {
  t.equal(headerSafe('%{bogus… at character 4'), '%{bogus... at character 4', 'an ellipsis has an ASCII form');
  t.equal(headerSafe('fichier journal reçu, dépôt refusé'), 'fichier journal recu, depot refuse', 'accents dropped, letters kept');
  t.equal(headerSafe('line one\r\nline two'), 'line one line two', 'no line break can end the header');
  t.equal(headerSafe('«日本»'), ' ', 'what has no ASCII form becomes a space');
  t.equal(headerSafe('x'.repeat(5000)).length, 1000, 'bounded');
});

t.test('a denied file that cannot be written (disk full): told once, written no more, closed; plain or compressed', async (t) => {
  const { DeniedFile } = await import('../../src/pipeline/job-output.js');
  const { deniedFrameFor } = await import('../../src/pipeline/writers/index.js');
  for (const compression of [undefined, 'gzip'] as const) {
    const errors: Error[] = [];
    // /dev/full answers every write with ENOSPC, as a full disk does
    const file = new DeniedFile('/dev/full', () => deniedFrameFor('csv', ['a', 'b']), { charset: 'utf-8', compression, contentEncoding: compression }, 'w', (err) => errors.push(err));
    for (let i = 0; i < 200; i++) file.writeAll([`${i};${'x'.repeat(1000)}\n`]);
    await file.drained();
    await new Promise((resolve) => setTimeout(resolve, 50));
    file.writeAll(['after;the failure\n']);
    await file.drained();
    await file.close({ code: 5005, message: 'x' });
    t.equal(errors.length, 1, `${compression ?? 'plain'}: told once`);
    t.match(errors[0], { code: 'ENOSPC' });
  }
});

t.test('a deferred job\'s result file that cannot be written (disk full) is told to its job', async (t) => {
  const { DeferredOutput } = await import('../../src/pipeline/job-output.js');
  const { frameFor } = await import('../../src/pipeline/writers/index.js');
  const { ServerResponse, IncomingMessage } = await import('node:http');
  const { Socket } = await import('node:net');
  const res = new ServerResponse(new IncomingMessage(new Socket()));
  const errors: Error[] = [];
  const output = new DeferredOutput(res, '/dev/full', () => frameFor('csv', ['a']), { charset: 'utf-8', compression: undefined, contentEncoding: undefined }, () => ({}), 60_000, (err) => errors.push(err));
  for (let i = 0; i < 200; i++) output.writeAll([`${'x'.repeat(1000)}\n`]);
  await output.drained();
  await new Promise((resolve) => setTimeout(resolve, 50));
  await output.abandon(5005, 'x');
  t.equal(errors.length, 1, 'told once');
  t.match(errors[0], { code: 'ENOSPC' });
});
