import type { EventStage } from './types.js';

/** The resource identifiers: any one of them qualifies an event (reference 3.6, 8.2). */
export const RESOURCE_IDENTIFIERS = ['title_id', 'print_identifier', 'doi', 'ark', 'pii', 'ppn', 'online_identifier', 'unitid', 'db_id'] as const;

const WEIGHTS: ReadonlyArray<readonly [string, number]> = [
  ['rtype', 0.5],
  ['mime', 0.5],
  ...RESOURCE_IDENTIFIERS.map((f) => [f, 1] as const),
];

/** An event is qualified when the weights of its non-empty fields reach 1. */
export function qualifierStage(level = 1): EventStage {
  return {
    name: 'qualifier',
    run(ec) {
      let score = 0;
      for (const [field, weight] of WEIGHTS) {
        const v = ec[field];
        if (v !== undefined && v !== '') {
          score += weight;
          if (score >= level) return undefined;
        }
      }
      return 'unqualified-ecs';
    },
  };
}
