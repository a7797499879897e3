import t from 'tap';
import { provenanceSetter } from '../../src/pipeline/batch-processor.js';
import type { AccessEvent } from '../../src/pipeline/event.js';

t.test('provenance: each field the event lacks, after its own, in order; names and values as data', async (t) => {
  const odd = 'a"b\'c`d${e}\\f\ng\u2028h';
  const add = provenanceSetter({ ezpaarse_version: '1.0', middlewares: 'filter, parser', [odd]: `"); globalThis.pwned = 1; ("` });
  const ec: AccessEvent = { url: 'http://x.org/', middlewares: 'mine' };
  add(ec);
  t.same(Object.entries(ec), [
    ['url', 'http://x.org/'],
    ['middlewares', 'mine'],
    ['ezpaarse_version', '1.0'],
    [odd, '"); globalThis.pwned = 1; ("'],
  ], 'a field the line gave is kept; the others follow it in the provenance order');
  t.equal((globalThis as { pwned?: number }).pwned, undefined);
  const again: AccessEvent = { ezpaarse_version: undefined };
  add(again);
  t.equal(again.ezpaarse_version, '1.0', 'an undefined field is a missing one');
  const none = provenanceSetter({});
  const e2 = { a: '1' };
  none(e2);
  t.same(e2, { a: '1' });
});
