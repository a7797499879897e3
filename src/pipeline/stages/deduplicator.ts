import { doubleClickKey, type DoubleClickOptions } from '../double-clicks.js';
import type { EventStage } from './types.js';

/**
 * The workers' half of the deduplicator: computes the event's double-click key and window where
 * the deduplicator stands in the chain (with the fields as they are there: clear host and login
 * when the anonymizer comes later). The main thread compares the keys in input order.
 */
export function deduplicatorStage(options: DoubleClickOptions): EventStage {
  return {
    name: 'deduplicator',
    run(ec, flags) {
      const k = doubleClickKey(ec, options);
      if (k) {
        flags.dupKey = k.key;
        flags.dupWindow = k.window;
      }
      return undefined;
    },
  };
}
