import { IpRangeBuilder, IpRanges, type IpRangeData } from '../../resources/ip-ranges.js';
import type { EventStage } from './types.js';

/** Campus networks: a label (written in `on_campus`) and its ranges. */
export interface CampusRangeData {
  readonly label: string;
  readonly ranges: IpRangeData;
}

/** Private networks count as on campus (reference): IPv4 RFC 1918, and IPv6 unique-local addresses. */
const PRIVATE_RANGES = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'];

/**
 * The campus networks from the ON_CAMPUS_RANGES setting: entries separated by `;`, each a comma
 * list of ranges (`Y` is written) or `label=range,range` (the label is written). The private
 * networks come last with the label `Y`. Throws on a range that is not one.
 */
export function campusRanges(setting: string | undefined): CampusRangeData[] {
  const groups: Array<{ label: string; entries: string[] }> = [];
  for (const item of (setting ?? '').split(';').map((s) => s.trim()).filter(Boolean)) {
    const eq = item.indexOf('=');
    const label = eq >= 0 ? item.slice(0, eq).trim() : 'Y';
    const entries = (eq >= 0 ? item.slice(eq + 1) : item).split(',').map((s) => s.trim()).filter(Boolean);
    groups.push({ label: label || 'Y', entries });
  }
  groups.push({ label: 'Y', entries: PRIVATE_RANGES });
  return groups.map(({ label, entries }) => {
    const builder = new IpRangeBuilder();
    for (const e of entries) if (!builder.add(e)) throw new Error(`ON_CAMPUS_RANGES: ${JSON.stringify(e)} is not an address, prefix or range`);
    return { label, ranges: builder.build() };
  });
}

/**
 * on-campus-counter (reference 3.8): `on_campus` is the label of the campus network of the client
 * (the first address of a proxy chain), or `N`. Events without a host are left alone. The main
 * thread counts on- and off-campus events for the report.
 */
export function onCampusStage(networks: readonly CampusRangeData[]): EventStage {
  const lists = networks.map((n) => ({ label: n.label, ranges: new IpRanges(n.ranges) }));
  return {
    name: 'on-campus-counter',
    run(ec, flags) {
      const host = ec.host;
      if (typeof host !== 'string' || host === '') return undefined;
      const comma = host.indexOf(',');
      const client = (comma >= 0 ? host.slice(0, comma) : host).trim();
      const hit = lists.find((l) => l.ranges.has(client));
      ec.on_campus = hit ? hit.label : 'N';
      flags.campus = hit !== undefined;
      return undefined;
    },
  };
}
