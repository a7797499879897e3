import type { AccessEvent } from '../event.js';
import { LINE_FIELD, lineFrame, type EventSerializer, type Frame } from './types.js';

/**
 * Clean-Only output (reference 3.5): the original line of each surviving event (field `_line`),
 * each followed by `\n`, nothing else.
 */
export function createCleanLogSerializer(): EventSerializer {
  return {
    serialize(ec: AccessEvent): string {
      const line = ec[LINE_FIELD];
      return line === undefined ? '' : String(line);
    },
  };
}

export function cleanLogFrame(): Frame {
  return lineFrame('');
}
