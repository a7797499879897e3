import type { AccessEvent } from '../../../src/pipeline/event.js';
import { createSerializer, frameFor } from '../../../src/pipeline/writers/index.js';
import type { OutputKind } from '../../../src/pipeline/writers/types.js';

/** A job's whole body, the way the main thread frames the workers' texts (reference 5.1). */
export function body(kind: OutputKind, columns: readonly string[], events: readonly AccessEvent[]): string {
  if (events.length === 0) return '';
  const serializer = createSerializer(kind, columns);
  const frame = frameFor(kind, columns);
  return frame.head + events.map((ec) => serializer.serialize(ec) + (frame.terminator ?? '')).join(frame.separator) + frame.tail;
}

/** The body of a job that failed after its events were sent. */
export function failedBody(kind: OutputKind, columns: readonly string[], events: readonly AccessEvent[], code: number, message: string): string {
  const serializer = createSerializer(kind, columns);
  const frame = frameFor(kind, columns);
  return frame.head + events.map((ec) => serializer.serialize(ec) + (frame.terminator ?? '')).join(frame.separator) + frame.errorMarker(code, message);
}
