import type { AccessEvent } from '../event.js';
import { errorLine, type EventSerializer, type Frame } from './types.js';

/**
 * JSON output (reference 5.4). Each event gives the text JSON.stringify would give for it, every
 * field included (a `_x` field is data: see LINE_FIELD): pretty-printed with a 2-space indent for
 * `application/json`, compact for jsonstream. Keys keep the event's insertion order; absent
 * (undefined) fields are left out.
 *
 * Written by hand rather than by stringifying a filtered copy: building the copy costs more than the
 * serialisation itself, and JSON.stringify cannot skip keys without a (slow) replacer.
 */

/**
 * Characters JSON.stringify would escape (controls, `"`, `\`, surrogates: lone ones are escaped).
 * Most values have none and are simply quoted; one native test is cheaper than a call to
 * JSON.stringify per value, and than a JavaScript scan of long URLs.
 */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;
/** Key texts are cached per serializer; the vocabulary is small, the bound only guards odd inputs. */
const MAX_CACHED_KEYS = 4096;

export function createObjectSerializer(pretty: boolean): EventSerializer {
  const keyTexts = new Map<string, string>();
  const first = pretty ? '{\n  ' : '{';
  const between = pretty ? ',\n  ' : ',';
  const last = pretty ? '\n}' : '}';
  const colon = pretty ? ': ' : ':';

  function keyText(key: string): string {
    let text = keyTexts.get(key);
    if (text === undefined) {
      text = JSON.stringify(key) + colon;
      if (keyTexts.size < MAX_CACHED_KEYS) keyTexts.set(key, text);
    }
    return text;
  }

  return {
    serialize(ec: AccessEvent): string {
      let out = '';
      // for…in rather than Object.keys: no array per event; events are plain objects
      for (const key in ec) {
        const value: unknown = ec[key];
        let text: string | undefined;
        if (typeof value === 'string') text = NEEDS_ESCAPE.test(value) ? JSON.stringify(value) : '"' + value + '"';
        else if (typeof value === 'number') text = Number.isFinite(value) ? String(value) : 'null';
        else if (value === undefined) continue;
        else {
          // anything else (null, boolean, array, object): exactly what JSON.stringify does in place
          text = pretty ? JSON.stringify(value, null, 2)?.replaceAll('\n', '\n  ') : JSON.stringify(value);
          if (text === undefined) continue;
        }
        out += (out === '' ? first : between) + keyText(key) + text;
      }
      return out === '' ? '{}' : out + last;
    },
  };
}

/** `[`, objects separated by `,` (no newline), `]`. */
export function jsonFrame(): Frame {
  return {
    head: '[',
    separator: ',',
    tail: ']',
    // a newline and a `#` line instead of `]`: no JSON parser accepts the result
    errorMarker: (code, message) => `\n${errorLine(code, message)}\n`,
  };
}

export function createJsonSerializer(): EventSerializer {
  return createObjectSerializer(true);
}
