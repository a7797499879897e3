import t from 'tap';
import { headerSafe } from '../../src/pipeline/job-output.js';

t.test('headerSafe keeps a message readable on one line of visible ASCII', async (t) => {
  t.equal(headerSafe('%{bogus… at character 4'), '%{bogus... at character 4', 'an ellipsis has an ASCII form');
  t.equal(headerSafe('fichier journal reçu, dépôt refusé'), 'fichier journal recu, depot refuse', 'accents dropped, letters kept');
  t.equal(headerSafe('line one\r\nline two'), 'line one line two', 'no line break can end the header');
  t.equal(headerSafe('«日本»'), ' ', 'what has no ASCII form becomes a space');
  t.equal(headerSafe('x'.repeat(5000)).length, 1000, 'bounded');
});
