import type { PkbReader } from '../../resources/pkb.js';
import type { EventStage } from './types.js';

/**
 * Knowledge-base enrichment (reference 3.8 `enhancer`): the record of the event's title in its
 * platform's base fills the fields the event lacks (publication_title, identifiers, publisher…);
 * fields already set are kept. A platform with a base that does not know the event's title
 * (title_id, print or online identifier) is a pkb miss (counted, line kept for
 * lines-pkb-miss-ecs.log); the event goes on. A DOI alone is looked up but never a miss: it is
 * mostly an article's, which no title list holds.
 */
export function enhancerStage(pkb: PkbReader): EventStage {
  return {
    name: 'enhancer',
    run(ec, flags) {
      const platform = ec.platform;
      if (typeof platform !== 'string' || !pkb.has(platform)) return undefined;
      const ids = {
        title_id: str(ec.title_id),
        print_identifier: str(ec.print_identifier),
        online_identifier: str(ec.online_identifier),
        doi: str(ec.doi),
      };
      if (!ids.title_id && !ids.print_identifier && !ids.online_identifier && !ids.doi) return undefined;
      const record = pkb.find(platform, ids);
      if (!record) {
        if (ids.title_id || ids.print_identifier || ids.online_identifier) flags.pkbMiss = true;
        return undefined;
      }
      for (const key in record) {
        const v = ec[key];
        if (v === undefined || v === '') ec[key] = record[key];
      }
      return undefined;
    },
  };
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}
