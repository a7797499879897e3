import { createObjectSerializer } from './json.js';
import type { EventSerializer, Frame } from './types.js';

/**
 * jsonstream (reference 5.4): one compact JSON object per event, separated by `\n`, no brackets and
 * no newline after the last one. A failure adds a last line `{"error":{"code":…,"message":"…"}}`;
 * event fields hold strings and numbers, so no event line can look like it.
 */
export function createJsonStreamSerializer(): EventSerializer {
  return createObjectSerializer(false);
}

export function jsonStreamFrame(): Frame {
  return {
    head: '',
    separator: '\n',
    tail: '',
    errorMarker: (code, message) => '\n' + JSON.stringify({ error: { code, message } }),
  };
}
