import fp from 'fastify-plugin';
import { join } from 'node:path';
import { PredefinedSettingsStore } from '../settings/predefined.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** logsift's, the resources part's and the institution's predefined settings */
    predefinedSettings: PredefinedSettingsStore;
  }
}

/** The predefined settings, read from disk when their files change. */
export default fp(async (app) => {
  const store = new PredefinedSettingsStore(
    { resourcesFile: join(app.config.resourcesDir, 'predefined-settings.json'), localDir: app.config.predefinedSettingsDir },
    (p) => app.log.warn({ file: p.file }, `predefined settings: ${p.message}`),
  );
  app.decorate('predefinedSettings', store);
}, { name: 'settings' });
