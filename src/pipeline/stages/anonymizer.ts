import { createHmac, randomBytes } from 'node:crypto';
import { StatusError } from '../../status-codes.js';
import type { AccessEvent } from '../event.js';
import type { EventStage } from './types.js';

/**
 * Crypting (reference 5.5): each listed field that holds a non-empty value is replaced by the
 * lowercase hex HMAC of its text (UTF-8), keyed with the salt. Runs last in the chain, so that
 * deduplication, geolocation and campus detection see the clear values.
 */
export interface Crypter {
  /** the crypted field names, trimmed */
  readonly fields: readonly string[];
  /** replaces the fields' values in place */
  crypt(ec: AccessEvent): void;
}

export const DEFAULT_CRYPTED_FIELDS: readonly string[] = Object.freeze(['host', 'login']);
export const DEFAULT_CRYPTING_ALGORITHM = 'sha1';

/**
 * Hosts and logins repeat a lot in a log: remembering recent hashes saves most HMAC computations.
 * Bounded, and simply emptied when full (cheaper than an LRU, and good enough for runs of one user).
 */
const CACHE_LIMIT = 10_000;

/**
 * Builds the job's crypter from Crypted-Fields, Crypting-Salt and Crypting-Algorithm, or undefined
 * when crypting is off (`disabled` or `none`, any case, or a list naming no field).
 *
 * - fields: absent or blank → `host,login`; a comma list, names trimmed, empty items dropped.
 * - salt: any string (UTF-8) is the key, the empty string included; absent → 40 random bytes, so
 *   hashes differ from one job to the next. A job run by several workers must draw the salt once and
 *   give the same one to every worker, or their hashes will not match.
 * - algorithm: absent or blank → sha1; a digest the runtime cannot use for HMAC is 4004 here, at
 *   creation, rather than an error on every event.
 */
export function createCrypter(header: { fields?: string; salt?: string; algorithm?: string }): Crypter | undefined {
  const fieldsHeader = header.fields?.trim();
  const fields = fieldsHeader
    ? fieldsHeader
        .split(',')
        .map((name) => name.trim())
        .filter((name) => name !== '')
    : [...DEFAULT_CRYPTED_FIELDS];
  // `none,` (a list joined by a script) is `none`; `none` beside a field asks two things at once
  const off = fields.filter((name) => /^(?:disabled|none)$/i.test(name));
  if (off.length > 0 && off.length < fields.length) {
    throw new StatusError(4032, `Crypted-Fields: "${off[0]}" turns crypting off and stands alone; to crypt fields, name only them (${JSON.stringify(fields.filter((n) => !off.includes(n)).join(','))})`);
  }
  if (fields.length === off.length) return undefined;

  const algorithm = header.algorithm?.trim() || DEFAULT_CRYPTING_ALGORITHM;
  const key: string | Buffer = header.salt ?? randomBytes(40);
  try {
    createHmac(algorithm, key).update('').digest();
  } catch {
    throw new StatusError(4004, `Crypting-Algorithm: "${algorithm}" (known: sha1, sha256, sha512, md5…)`);
  }

  const cache = new Map<string, string>();
  const hash = (text: string): string => {
    let hex = cache.get(text);
    if (hex === undefined) {
      hex = createHmac(algorithm, key).update(text, 'utf8').digest('hex');
      if (cache.size >= CACHE_LIMIT) cache.clear();
      cache.set(text, hex);
    }
    return hex;
  };

  // geoip-host is the client's address taken from host: left clear, it would undo host's crypting
  const crypted = fields.includes('host') && !fields.includes('geoip-host') ? [...fields, 'geoip-host'] : fields;
  return {
    fields: Object.freeze(fields),
    crypt(ec: AccessEvent): void {
      for (let i = 0; i < crypted.length; i++) {
        const value = ec[crypted[i]];
        // a field is a string or a number: a name like `constructor` finds Object's, not a field
        if ((typeof value !== 'string' && typeof value !== 'number') || value === '') continue;
        ec[crypted[i]] = hash(String(value));
      }
    },
  };
}

/** The anonymizer as a step of the chain: where it stands decides what the later steps see. */
export function anonymizerStage(crypter: Crypter): EventStage {
  return {
    name: 'anonymizer',
    run(ec) {
      crypter.crypt(ec);
      return undefined;
    },
  };
}
