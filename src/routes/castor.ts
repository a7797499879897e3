import type { FastifyInstance } from 'fastify';
import { Type } from '@fastify/type-provider-typebox';
import type { PkbData } from '../resources/pkb.js';

export const CastorStatusSchema = Type.Object({
  state: Type.Union([Type.Literal('idle'), Type.Literal('synchronizing'), Type.Literal('synchronized'), Type.Literal('unavailable')]),
  remaining: Type.Integer(),
  synchronizing: Type.Array(Type.String()),
  /** logsift's own: platforms with a base, their titles and files */
  platforms: Type.Array(Type.String()),
  titles: Type.Integer(),
  files: Type.Integer(),
});

/**
 * The reference's import state in logsift's terms: the bases are indexed into SQLite before the
 * service listens, and again when a reload (after an update) reads them; in between they are
 * `synchronized`, or `idle` when there is none. Files being indexed are not tracked one by one.
 */
export function castorStatus(pkb: PkbData, reloading: boolean) {
  const state = reloading ? 'synchronizing' as const : pkb.files > 0 ? 'synchronized' as const : 'idle' as const;
  return { state, remaining: 0, synchronizing: [], platforms: [...pkb.platforms], titles: pkb.titles, files: pkb.files };
}

/** `GET /castor/status` (public): the knowledge bases' indexing state. */
export default async function castorRoutes(app: FastifyInstance): Promise<void> {
  app.get('/castor/status', { schema: { response: { 200: CastorStatusSchema } } }, async (_request, reply) => {
    reply.header('Cache-Control', 'no-store');
    return castorStatus(app.platforms.resources.data.pkb, app.runtime.reloadsPending > 0);
  });
}
