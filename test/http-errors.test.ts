import t from 'tap';
import { schemaErrorMessage } from '../src/http-errors.js';

t.test('schema failures say which values a field accepts', async (t) => {
  // what Ajv reports for a union of literals: one "equal to constant" per value, then the anyOf
  const union = [
    { keyword: 'const', instancePath: '/version', schemaPath: '#/properties/version/anyOf/0/const', params: { allowedValue: 'stable' }, message: 'must be equal to constant' },
    { keyword: 'const', instancePath: '/version', schemaPath: '#/properties/version/anyOf/1/const', params: { allowedValue: 'latest' }, message: 'must be equal to constant' },
    { keyword: 'anyOf', instancePath: '/version', schemaPath: '#/properties/version/anyOf', params: {}, message: 'must match a schema in anyOf' },
  ];
  t.equal(schemaErrorMessage(union, 'querystring'), 'querystring/version must be one of "stable", "latest"');
  t.equal(schemaErrorMessage([{ keyword: 'enum', instancePath: '/sort', schemaPath: '', params: { allowedValues: ['asc', 'desc'] }, message: 'must be equal to one of the allowed values' }], 'querystring'),
    'querystring/sort must be one of "asc", "desc"');
  t.equal(schemaErrorMessage([{ keyword: 'additionalProperties', instancePath: '', schemaPath: '', params: { additionalProperty: 'bogus' }, message: 'must NOT have additional properties' }], 'body'),
    'body must not have the property "bogus"');
  t.equal(schemaErrorMessage([
    { keyword: 'required', instancePath: '', schemaPath: '', params: { missingProperty: 'userid' }, message: "must have required property 'userid'" },
    { keyword: 'type', instancePath: '/days', schemaPath: '', params: { type: 'integer' }, message: 'must be integer' },
  ], 'body'), "body must have required property 'userid'; body/days must be integer", 'other failures as Ajv says them, one part per field');
  t.equal(schemaErrorMessage([{ keyword: 'anyOf', instancePath: '/x', schemaPath: '', params: {}, message: 'must match a schema in anyOf' }], 'body'), 'body/x must match a schema in anyOf', 'a union with nothing more to say');
});
