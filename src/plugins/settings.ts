import fp from 'fastify-plugin';
import { join } from 'node:path';
import { PredefinedSettingsStore } from '../settings/predefined.js';
import { CustomSettingsStore } from '../db/custom-settings.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** logsift's, the resources part's, the institution's and the custom predefined settings */
    predefinedSettings: PredefinedSettingsStore;
    /** the custom predefined settings administrators write (the database's) */
    customSettings: CustomSettingsStore;
  }
}

/** The predefined settings, read from disk when their files change, and from the database after a write. */
export default fp(async (app) => {
  const custom = new CustomSettingsStore(app.db);
  const store = new PredefinedSettingsStore(
    { resourcesFile: join(app.config.resourcesDir, 'predefined-settings.json'), localDir: app.config.predefinedSettingsDir },
    (p) => app.log.warn({ file: p.file }, `predefined settings: ${p.message}`),
    custom,
  );
  app.decorate('customSettings', custom);
  app.decorate('predefinedSettings', store);
}, { name: 'settings', dependencies: ['database'] });
