import type { GeoLocator } from '../../resources/geoip.js';
import type { EventStage } from './types.js';

/**
 * Geolocation of the client (reference 3.8 `geolocalizer`): every geoip-* field the database
 * knows is set (the Geoip header only chooses the CSV columns, as in the reference); the first
 * public address of a proxy chain is the one located.
 */
export function geolocalizerStage(locator: GeoLocator): EventStage {
  return {
    name: 'geolocalizer',
    run(ec) {
      const host = ec.host;
      if (typeof host !== 'string' || host === '') return undefined;
      const fields = locator.locate(host);
      if (fields) for (const key in fields) ec[key] = fields[key as keyof typeof fields];
      return undefined;
    },
  };
}
