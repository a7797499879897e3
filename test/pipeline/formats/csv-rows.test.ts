import t from 'tap';
import { csvRowFields } from '../../../src/pipeline/formats/csv-rows.js';

t.test('csvRowFields: a row line, or undefined', async (t) => {
  t.same(csvRowFields('{"a":"1","b":""}'), { a: '1' });
  const proto = csvRowFields('{"a":"1","__proto__":"x"}')!;
  t.same(Object.entries(proto), [['a', '1'], ['__proto__', 'x']], 'a __proto__ column is an own field');
  t.equal(Object.getPrototypeOf(proto), Object.prototype, 'the prototype is untouched');
  t.equal(csvRowFields('not json'), undefined);
  t.equal(csvRowFields('[1,2]'), undefined);
  t.equal(csvRowFields('null'), undefined);
  t.same(csvRowFields('{"a":1,"b":"2"}'), { b: '2' }, 'only text values (what the main thread writes)');
});
