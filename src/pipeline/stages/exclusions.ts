import { StatusError } from '../../status-codes.js';
import type { Exclusions } from '../../resources/exclusions.js';
import type { EventStage } from './types.js';

/** Which exclusion lists a job applies (`Disable-Filters` switches them off). */
export interface ExclusionSwitches {
  readonly robots: boolean;
  readonly ignoredHosts: boolean;
  readonly ignoredDomains: boolean;
}

const FILTER_NAMES = ['robots', 'ignored-hosts', 'ignored-domains'] as const;

/** `Disable-Filters`: `none` (default), `all`, or a comma list of robots, ignored-hosts, ignored-domains. */
export function readDisableFilters(value: string | undefined): ExclusionSwitches {
  const v = value?.trim().toLowerCase();
  if (!v || v === 'none') return { robots: true, ignoredHosts: true, ignoredDomains: true };
  if (v === 'all') return { robots: false, ignoredHosts: false, ignoredDomains: false };
  const off = new Set<string>();
  for (const item of v.split(',').map((s) => s.trim()).filter(Boolean)) {
    if (item === 'none' || item === 'all') {
      throw new StatusError(4032, `Disable-Filters: "${item}" stands alone (none: every filter on; all: every filter off); otherwise a list of ${FILTER_NAMES.join(', ')}`);
    }
    if (!(FILTER_NAMES as readonly string[]).includes(item)) {
      throw new StatusError(4032, `Disable-Filters: unknown filter ${JSON.stringify(item)} (known: none, all, ${FILTER_NAMES.join(', ')})`);
    }
    off.add(item);
  }
  return { robots: !off.has('robots'), ignoredHosts: !off.has('ignored-hosts'), ignoredDomains: !off.has('ignored-domains') };
}

/** The event field holding the user agent, when the log format captures one (`%{User-Agent}i`…). */
export function userAgentField(fieldNames: readonly string[]): string | undefined {
  return fieldNames.find((f) => /^(?:user[-_]?agent|ua)$/i.test(f));
}

/**
 * Reference 3.3 steps 6–8: ignored domain, ignored host, robot. Every address of a proxy chain
 * is checked; a robot is also a user agent that isbot recognises, when the format captures one.
 * Every event that passes gets `robot: yes/no` (yes only when the robots filter is off).
 */
export function exclusionStage(lists: Exclusions, on: ExclusionSwitches, uaField?: string): EventStage {
  return {
    name: 'exclusions',
    run(ec) {
      const domain = ec.domain;
      if (on.ignoredDomains && typeof domain === 'string' && lists.isIgnoredDomain(domain)) return 'ignored-domains';
      const host = typeof ec.host === 'string' ? ec.host : undefined;
      if (on.ignoredHosts && host && lists.hosts.matches(host)) return 'ignored-hosts';
      const ua = uaField ? ec[uaField] : undefined;
      const robot = (host !== undefined && lists.robots.matches(host)) || (typeof ua === 'string' && ua !== '' && lists.isRobotAgent(ua));
      if (robot && on.robots) return 'robots-ecs';
      ec.robot = robot ? 'yes' : 'no';
      return undefined;
    },
  };
}
