import t from 'tap';
import Fastify from 'fastify';
import { Type } from '@fastify/type-provider-typebox';
import { nonFinitePath, refuseNonFiniteNumbers, schemaErrorFormatter, schemaErrorMessage } from '../src/http-errors.js';

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

t.test('numbers that are not finite: found in parsed data, refused on every validated part', async (t) => {
  t.equal(nonFinitePath({ a: 1, b: [0, { c: 'Infinity' }] }), undefined);
  t.equal(nonFinitePath({ a: 1, b: [0, { 'c/d': -Infinity }] }), '/b/1/c~1d');
  t.equal(nonFinitePath(NaN), '');
  t.equal(nonFinitePath(Buffer.from('x')), undefined, 'a Buffer is not walked');

  const app = Fastify({ ajv: { customOptions: { coerceTypes: true } }, schemaErrorFormatter });
  t.teardown(() => app.close());
  app.addHook('preHandler', refuseNonFiniteNumbers);
  app.post('/n/:id', {
    schema: {
      params: Type.Object({ id: Type.Integer({ maximum: 10 }) }),
      querystring: Type.Object({ q: Type.Optional(Type.Integer({ maximum: 10 })) }),
      body: Type.Object({ n: Type.Number({ maximum: 10 }) }),
    },
  }, async () => 'ok');
  const post = (url: string, payload: string) => app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/json' } });
  t.equal((await post('/n/1?q=2', '{"n":3}')).body, 'ok');
  // a JSON 1e400 is refused by Ajv itself ("must be number"); a string is coerced to Infinity
  for (const [url, payload, message] of [
    ['/n/1e400', '{"n":3}', 'params/id must be a finite number'],
    ['/n/1?q=Infinity', '{"n":3}', 'querystring/q must be a finite number'],
    ['/n/1', '{"n":"-1e400"}', 'body/n must be a finite number'],
  ]) {
    const res = await post(url, payload);
    t.equal(res.statusCode, 400, `${url} ${payload}`);
    t.match(res.json(), { code: 'FST_ERR_VALIDATION', message });
  }
});
