import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { buildVocabulary, sortItems, type Vocabulary } from '../info/vocabulary.js';
import { formPredefinedView } from '../settings/predefined.js';
import { UsageStore } from '../db/usage.js';
import { REJECT_INFO } from '../info/rejects.js';
import type { LoadedPlatforms } from '../plugins/platforms.js';
import { CountriesSource } from '../info/countries.js';
import { defaultGeoipFile } from '../resources/geoip.js';
import { join } from 'node:path';
import { hideServerErrors } from '../http-errors.js';

const VocabularyItem = Type.Object({
  code: Type.String(),
  description: Type.String(),
  description_en: Type.String(),
  reference: Type.Boolean(),
  platforms: Type.Integer(),
});
const VocabularyList = Type.Array(VocabularyItem);
const SortQuery = Type.Object({ sort: Type.Optional(Type.String({ maxLength: 10 })) });

export const PredefinedSettingSchema = Type.Object({
  fullName: Type.String(),
  country: Type.String(),
  headers: Type.Record(Type.String(), Type.String()),
});

const UsageCounters = {
  jobs: Type.Integer(),
  failed: Type.Integer(),
  bytes: Type.Integer(),
  lines: Type.Integer(),
  events: Type.Integer(),
  denied: Type.Integer(),
  rejected: Type.Integer(),
  filtered: Type.Integer(),
  durationMs: Type.Integer(),
};

export const UsageSchema = Type.Object({
  since: Type.String(),
  general: Type.Object({
    'Job-IDs': Type.Integer(),
    'failed-jobs': Type.Integer(),
    'bytes-total': Type.Integer(),
    'nb-lines-input-total': Type.Integer(),
    'nb-ecs-total': Type.Integer(),
    'nb-denied-ecs-total': Type.Integer(),
    'nb-lines-rejected-total': Type.Integer(),
    'nb-lines-filtered-total': Type.Integer(),
    /** rejected lines in percent of the lines read less the filtered ones (reference 4.4), two decimals */
    'Rejection-Rate-average': Type.Number(),
    /** seconds */
    'Job-Duration-average': Type.Number(),
    /** lines per second over all the jobs' durations */
    'process-speed-average': Type.Number(),
    'Job-Date-start': Type.Optional(Type.String()),
    'Job-Date-end': Type.Optional(Type.String()),
  }),
  stats: Type.Object({ platforms: Type.Integer() }),
  days: Type.Array(Type.Object({ day: Type.String(), ...UsageCounters })),
  platforms: Type.Array(Type.Object({ platform: Type.String(), jobs: Type.Integer(), events: Type.Integer() })),
});

export const AppInfoSchema = Type.Object({
  name: Type.Literal('logsift'),
  version: Type.String(),
  uptime: Type.String(),
  uptimeSeconds: Type.Integer(),
  demo: Type.Boolean(),
  /** whether submitting a job (and reading its files) needs a login now */
  jobsNeedLogin: Type.Boolean(),
  hasUsers: Type.Boolean(),
  /** 0 = no limit */
  maxUploadBytes: Type.Integer(),
});

export const RejectInfoSchema = Type.Array(Type.Object({
  category: Type.String(),
  counter: Type.String(),
  file: Type.String(),
  label: Type.String(),
  description: Type.String(),
  inRejectionRate: Type.Boolean(),
  kept: Type.Boolean(),
}));

function uptime(seconds: number): string {
  const d = Math.floor(seconds / 86400);
  const h = Math.floor((seconds % 86400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return `${d}d ${h}h ${m}m ${seconds % 60}s`;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/**
 * Information routes beside /info/codes, /version and /platforms (mounted under /info and
 * /api/info): the event vocabulary, the predefined settings, usage counters and the service's
 * own state. All public and read-only (the custom predefined settings: custom-settings.ts).
 */
export default async function infoDataRoutes(instance: FastifyInstance): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  app.setErrorHandler(hideServerErrors);
  const started = Date.now();

  // Computed once per set of loaded platforms (a platforms update brings a new set).
  let vocabulary: { for: LoadedPlatforms; value: Vocabulary } | undefined;
  const currentVocabulary = (): Vocabulary => {
    const platforms = app.platforms;
    if (vocabulary?.for !== platforms) vocabulary = { for: platforms, value: buildVocabulary(platforms.sources) };
    return vocabulary.value;
  };

  for (const kind of ['rid', 'rtype', 'mime'] as const) {
    for (const path of [`/${kind}`, `/${kind}.json`]) {
      app.get(path, { schema: { querystring: SortQuery, response: { 200: VocabularyList } } },
        async (request) => sortItems(currentVocabulary()[kind], request.query.sort));
    }
  }
  for (const path of ['/fields', '/fields.json']) {
    app.get(path, {
      schema: { response: { 200: Type.Object({ rid: VocabularyList, rtype: VocabularyList, mime: VocabularyList, other: VocabularyList }) } },
    }, async () => currentVocabulary());
  }

  app.get('/rejects', { schema: { response: { 200: RejectInfoSchema } } }, async () => [...REJECT_INFO]);

  app.get('/predefined-settings', {
    schema: { response: { 200: Type.Record(Type.String(), PredefinedSettingSchema) } },
  }, async () => app.predefinedSettings.all());

  const countries = new CountriesSource(join(app.config.resourcesDir, 'countries.json'), defaultGeoipFile('country'));
  app.get('/countries.json', {
    schema: {
      response: {
        200: Type.Array(Type.Object({ code: Type.Optional(Type.String()), fr: Type.String(), en: Type.String() }, { additionalProperties: Type.String() })),
        404: Type.Object({ message: Type.Literal('no_countries') }),
      },
    },
  }, async (_request, reply) => {
    const list = await countries.list();
    if (!list) return reply.code(404).send({ message: 'no_countries' as const });
    return list;
  });

  app.get('/form-predefined', {
    schema: { response: { 200: Type.Record(Type.String(), Type.Record(Type.String(), Type.String())) } },
  }, async () => formPredefinedView(await app.predefinedSettings.all()));

  const usage = new UsageStore(app.db);
  for (const path of ['/usage', '/usage.json']) {
    app.get(path, {
      schema: {
        querystring: Type.Object({
          days: Type.Optional(Type.Integer({ minimum: 1, maximum: 36600 })),
          top: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
        }),
        response: { 200: UsageSchema },
      },
    }, async (request) => {
      const days = request.query.days ?? 30;
      const since = new Date(Date.now() - (days - 1) * 86_400_000).toISOString().slice(0, 10);
      const s = usage.summary(since, request.query.top ?? 10);
      const t = s.totals;
      return {
        since,
        general: {
          'Job-IDs': t.jobs,
          'failed-jobs': t.failed,
          'bytes-total': t.bytes,
          'nb-lines-input-total': t.lines,
          'nb-ecs-total': t.events,
          'nb-denied-ecs-total': t.denied,
          'nb-lines-rejected-total': t.rejected,
          'nb-lines-filtered-total': t.filtered,
          'Rejection-Rate-average': t.lines - t.filtered > 0 ? round2((t.rejected * 100) / (t.lines - t.filtered)) : 0,
          'Job-Duration-average': t.jobs > 0 ? round2(t.durationMs / t.jobs / 1000) : 0,
          'process-speed-average': t.durationMs > 0 ? Math.round((t.lines * 1000) / t.durationMs) : 0,
          ...(s.firstDay ? { 'Job-Date-start': s.firstDay, 'Job-Date-end': s.lastDay } : {}),
        },
        stats: { platforms: s.platformCount },
        days: s.days,
        platforms: s.platforms,
      };
    });
  }

  app.get('/app', { schema: { response: { 200: AppInfoSchema } } }, async (_request, reply) => {
    const seconds = Math.floor((Date.now() - started) / 1000);
    reply.header('Cache-Control', 'no-store');
    return {
      name: 'logsift' as const,
      version: app.appVersion,
      uptime: uptime(seconds),
      uptimeSeconds: seconds,
      demo: false,
      jobsNeedLogin: app.jobsNeedLogin(),
      hasUsers: app.userStore.count() > 0,
      maxUploadBytes: app.config.limits.maxUploadBytes,
    };
  });
}
