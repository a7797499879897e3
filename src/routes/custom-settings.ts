import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { CustomSettingError, type CustomSettingInput } from '../db/custom-settings.js';
import { checkCustomSetting, type SettingSource } from '../settings/predefined.js';
import { ApiError, ErrorBody, apiErrorHandler, hideServerErrors } from '../http-errors.js';
import { PredefinedSettingSchema } from './info-data.js';

/** A custom setting as the write routes answer it: the setting, and who wrote it when. */
const CustomSettingRecord = Type.Object({
  id: Type.String(),
  ...PredefinedSettingSchema.properties,
  createdBy: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
  updatedBy: Type.Union([Type.String(), Type.Null()]),
  updatedAt: Type.String(),
});

/** An item of the public list: the reference's `{ id, fullName, country, headers }`, and where it is kept. */
const ListedSetting = Type.Object({
  id: Type.String(),
  ...PredefinedSettingSchema.properties,
  /** `custom`: written through these routes (may be changed and deleted); `local`: a file of PREDEFINED_SETTINGS_DIR */
  source: Type.Union([Type.Literal('custom'), Type.Literal('local')]),
  updatedAt: Type.Optional(Type.String()),
});

const IdParam = Type.Object({ id: Type.String({ maxLength: 1024 }) });
const Errors = { '4xx': ErrorBody };

const SOURCE_NAMES: Readonly<Record<SettingSource, string>> = {
  logsift: "logsift's own settings",
  resources: "the resources part's predefined-settings.json",
  local: 'the files of PREDEFINED_SETTINGS_DIR',
  custom: 'the custom settings',
};

const ERROR_STATUS = { alreadyExists: 409, settingNotFound: 404 } as const;

/** The setting of a write's body: the reference's `{ settings: {…} }`, checked; `defaultId` when it names none (PUT). */
function bodySetting(body: unknown, defaultId?: string): CustomSettingInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body) || !('settings' in body)) {
    throw new ApiError(400, 'invalidParameter', {}, 'the body must be JSON of the form { "settings": { "id", "fullName", "country", "headers" } }');
  }
  let settings = (body as { settings: unknown }).settings;
  if (defaultId !== undefined && typeof settings === 'object' && settings !== null && !Array.isArray(settings) && (settings as { id?: unknown }).id === undefined) {
    settings = { ...settings, id: defaultId };
  }
  const checked = checkCustomSetting(settings);
  if (typeof checked === 'string') throw new ApiError(400, 'invalidParameter', {}, `settings: ${checked}`);
  return checked;
}

const author = (request: FastifyRequest) => request.user?.username ?? null;

/**
 * Custom predefined settings (routes.md 6.3), mounted under /info and /api/info: the list is
 * public; creating, replacing and deleting one is for administrators (the reference lets any
 * logged user). They are kept in the database and merged after the files' settings, whose ids
 * they may not take: a job naming one in ezPAARSE-Predefined-Settings gets it from the next job on.
 */
export default async function customSettingsRoutes(instance: FastifyInstance): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  app.setErrorHandler((error: FastifyError | CustomSettingError, request, reply) => {
    // The public list says nothing of a failure's cause (the database's path), as the other information routes.
    if (request.method === 'GET' || request.method === 'HEAD') return hideServerErrors(error as FastifyError, request, reply);
    return apiErrorHandler(error instanceof CustomSettingError ? new ApiError(ERROR_STATUS[error.code], error.code, {}, error.detail) : error, request, reply);
  });

  // The reference's array of `{id, fullName, country, headers}`: the database's and the
  // institution's files' (PREDEFINED_SETTINGS_DIR), the latter read-only here.
  app.get('/predefined-settings/custom', {
    schema: { response: { 200: Type.Array(ListedSetting) } },
  }, async () => {
    const [settings, sources] = await Promise.all([app.predefinedSettings.all(), app.predefinedSettings.sources()]);
    const written = new Map(app.customSettings.list().map((s) => [s.id, s]));
    return Object.entries(settings)
      .filter(([id]) => sources[id] === 'local' || sources[id] === 'custom')
      .map(([id, s]) => ({ id, ...s, source: sources[id] as 'local' | 'custom', updatedAt: written.get(id)?.updatedAt }));
  });

  /** Refuses the id of a setting of the files: the job would get one of the two only. */
  const refuseFileId = async (id: string) => {
    const taken = await app.predefinedSettings.fileSetting(id);
    if (taken) throw new ApiError(409, 'alreadyExists', {}, `${JSON.stringify(taken.id)} is a setting of ${SOURCE_NAMES[taken.source]}: choose another id`);
  };

  app.post('/predefined-settings/custom', {
    onRequest: app.requireAdmin,
    schema: { response: { 201: CustomSettingRecord, ...Errors } },
  }, async (request, reply) => {
    const input = bodySetting(request.body);
    await refuseFileId(input.id);
    const saved = app.customSettings.create(input, author(request));
    request.log.info({ setting: saved.id, by: saved.createdBy }, 'custom predefined setting created');
    return reply.code(201).send(saved);
  });

  app.put('/predefined-settings/custom/:id', {
    onRequest: app.requireAdmin,
    schema: { params: IdParam, response: { 200: CustomSettingRecord, ...Errors } },
  }, async (request) => {
    const { id } = request.params;
    const current = app.customSettings.get(id);
    if (!current) {
      const file = await app.predefinedSettings.fileSetting(id);
      throw new ApiError(404, 'settingNotFound', {}, file
        ? `${JSON.stringify(file.id)} is a setting of ${SOURCE_NAMES[file.source]}: only custom settings are changed here`
        : `there is no custom setting ${JSON.stringify(id)}`);
    }
    const input = bodySetting(request.body, current.id);
    // Renamed: the new id may not be a file's (kept: a file that took it since does not block the change).
    if (input.id.toLowerCase() !== current.id.toLowerCase()) await refuseFileId(input.id);
    const saved = app.customSettings.replace(current.id, input, author(request));
    request.log.info({ setting: saved.id, was: current.id === saved.id ? undefined : current.id, by: saved.updatedBy }, 'custom predefined setting replaced');
    return saved;
  });

  app.delete('/predefined-settings/custom/:id', {
    onRequest: app.requireAdmin,
    schema: { params: IdParam, response: { 204: Type.Null(), ...Errors } },
  }, async (request, reply) => {
    app.customSettings.remove(request.params.id);
    request.log.info({ setting: request.params.id, by: author(request) }, 'custom predefined setting deleted');
    return reply.code(204).send(null);
  });
}
