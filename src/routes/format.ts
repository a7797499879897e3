import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type, type TSchema, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ErrorBody, apiErrorHandler, errorBody } from '../http-errors.js';
import { FormatTesterBusy } from '../plugins/format-tester.js';
import { TESTER_LIMITS } from '../pipeline/formats/tester.js';
import { formatCandidates } from '../pipeline/formats/discover.js';

const Family = Type.Union(['ezproxy', 'apache', 'squid', 'bibliopam'].map((f) => Type.Literal(f)));

const TestBody = Type.Object({
  // bounded by the route's body limit; the tester counts its bytes (tooMuchText)
  logLines: Type.String(),
  format: Type.Optional(Type.String({ maxLength: 4096 })),
  proxy: Type.Optional(Family),
  dateFormat: Type.Optional(Type.String({ maxLength: TESTER_LIMITS.dateFormatChars })),
});

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

const TestResult = Type.Object({
  autoDetect: Type.Boolean(),
  proxy: Nullable(Type.String()),
  format: Nullable(Type.String()),
  regexp: Nullable(Type.String()),
  strictMatch: Type.Boolean(),
  recognised: Type.Boolean(),
  formatBreak: Nullable(Type.String()),
  regexpBreak: Nullable(Type.String()),
  breakAt: Nullable(Type.Object({ format: Type.Integer(), line: Type.Integer() })),
  missing: Type.Array(Type.Union([Type.Literal('date'), Type.Literal('url'), Type.Literal('domain')])),
  ec: Nullable(Type.Record(Type.String(), Type.Union([Type.String(), Type.Number()]))),
  lines: Type.Object({ tested: Type.Integer(), matching: Type.Integer() }),
});

const DiscoverBody = Type.Object({ logLines: Type.String() });

const DiscoverResult = Type.Object({
  /** the pasted lines tried (the first 20 non-blank ones) */
  tested: Type.Integer(),
  /** the settings whose log format reads at least one line, those reading the most first */
  settings: Type.Array(Type.Object({
    id: Type.String(),
    fullName: Type.String(),
    country: Type.String(),
    proxy: Type.String(),
    format: Type.String(),
    dateFormat: Type.String(),
    matching: Type.Integer(),
  })),
});

const TesterError = Type.Object({ ...ErrorBody.properties, position: Type.Optional(Type.Integer()), code: Type.Optional(Type.Integer()) });

/**
 * `PUT /api/format/logparser`: tries a log format on pasted lines (routes reference 1.8). The
 * matching runs in the format tester's own thread within FORMAT_TEST_BUDGET_MS; a format whose
 * regexes take longer is answered 422 (code 4038), never left running.
 */
export default async function formatRoutes(instance: FastifyInstance): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  app.setErrorHandler(apiErrorHandler);

  app.put('/api/format/logparser', {
    bodyLimit: 4 * TESTER_LIMITS.textBytes,
    schema: { body: TestBody, response: { 200: TestResult, '4xx': TesterError, 503: ErrorBody } },
  }, async (request, reply) => {
    const body = request.body;
    let answer;
    try {
      answer = await app.formatTester.run({ ...body, defaultZone: app.config.defaultTimeZone });
    } catch (err) {
      if (err instanceof FormatTesterBusy) return reply.code(503).header('Retry-After', '2').send(errorBody(503, 'busy', err.message));
      throw err;
    }
    if (answer.ok) return answer.result;
    return refused(reply, answer);
  });

  // The predefined settings whose log format reads the pasted lines (reference 5.4, "discover").
  app.put('/api/format/discover', {
    bodyLimit: 4 * TESTER_LIMITS.textBytes,
    schema: { body: DiscoverBody, response: { 200: DiscoverResult, '4xx': TesterError, 503: ErrorBody } },
  }, async (request, reply) => {
    const settings = await app.predefinedSettings.all();
    let answer;
    try {
      answer = await app.formatTester.discover({ logLines: request.body.logLines, candidates: formatCandidates(settings), defaultZone: app.config.defaultTimeZone });
    } catch (err) {
      if (err instanceof FormatTesterBusy) return reply.code(503).header('Retry-After', '2').send(errorBody(503, 'busy', err.message));
      throw err;
    }
    if (!answer.ok) return refused(reply, answer);
    const found = answer.result.formats.flatMap((f) => f.ids.map((id) => ({
      id, fullName: settings[id].fullName, country: settings[id].country,
      proxy: f.proxy, format: f.format, dateFormat: f.dateFormat, matching: f.matching,
    })));
    return { tested: answer.result.tested, settings: found };
  });
}

function refused(reply: FastifyReply, answer: { code: string; message: string; position?: number }) {
  if (answer.code === 'tooCostly') return reply.code(422).send({ ...errorBody(422, 'tooCostly', answer.message), code: 4038 });
  const position = answer.position;
  return reply.code(400).send({ ...errorBody(400, answer.code, answer.message), ...(position !== undefined ? { position } : {}) });
}
