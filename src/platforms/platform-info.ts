import { Type } from '@fastify/type-provider-typebox';
import { ruleCountOf, type PlatformSource } from './loader.js';
import { routedDomains, type PlatformManifest } from './manifest.js';
import type { PkbPackage } from '../resources/pkb.js';

/** One entry of `/info/platforms`: the manifest as stored (as the reference's 3.x), plus counts. */
export type PlatformInfo = PlatformManifest & {
  /** host names routed to the platform (`domains` and `kb-domains`) */
  'domains-count': number;
  /** declarative rules, nested ones included; a community parser.js or a parse hook counts 1 */
  'rule-count': number;
  /** `rules` (logsift's rules, maybe with hooks) or `ezpaarse` (a community parser.js) */
  kind: PlatformSource['kind'];
  /** the platform's knowledge-base packages (reference routes.md 1.1), [] when it has none */
  'pkb-packages': readonly PkbPackage[];
};

/**
 * The response schema of one `/info/platforms` entry. The serializer keeps only what a schema
 * lists, so every key a manifest is known to have is listed; any other key of a manifest is
 * passed on as stored (additionalProperties), as the reference's 3.x does. The keys the loader
 * does not check are typed loosely, so that a manifest is never rewritten on its way out.
 */
export const PlatformInfoSchema = Type.Object({
  name: Type.String(),
  longname: Type.String(),
  publisher_name: Type.Optional(Type.Unknown()),
  domains: Type.Array(Type.String()),
  'kb-domains': Type.Optional(Type.Array(Type.String())),
  priority: Type.Optional(Type.Number()),
  'host-priority': Type.Optional(Type.Record(Type.String(), Type.Number())),
  version: Type.Optional(Type.Unknown()),
  status: Type.Optional(Type.Unknown()),
  describe: Type.Optional(Type.Unknown()),
  docurl: Type.Optional(Type.Unknown()),
  contact: Type.Optional(Type.Unknown()),
  pkb: Type.Optional(Type.Unknown()),
  'pkb-domains': Type.Optional(Type.Unknown()),
  recognize: Type.Optional(Type.Unknown()),
  bacon: Type.Optional(Type.Unknown()),
  trello: Type.Optional(Type.Unknown()),
  'domains-count': Type.Integer(),
  'rule-count': Type.Integer(),
  kind: Type.Union([Type.Literal('rules'), Type.Literal('ezpaarse')]),
  'pkb-packages': Type.Array(Type.Object({ name: Type.String(), date: Type.String(), entries: Type.Integer() })),
}, { additionalProperties: true });

/**
 * The platforms' descriptions, sorted by name, optionally only those of one `status`. `packages`:
 * the knowledge-base packages by platform name, as the loaded bases describe them.
 */
export function describePlatforms(
  sources: readonly PlatformSource[],
  status?: string,
  packages: Readonly<Record<string, readonly PkbPackage[]>> = {},
): PlatformInfo[] {
  return sources
    .filter((s) => status === undefined || s.manifest.status === status)
    .map((s) => ({
      ...s.manifest,
      'domains-count': new Set(routedDomains(s.manifest).map((d) => d.trim().toLowerCase())).size,
      'rule-count': ruleCountOf(s),
      kind: s.kind,
      'pkb-packages': Object.hasOwn(packages, s.manifest.name) ? packages[s.manifest.name] : [],
    }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
