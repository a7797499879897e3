/**
 * An access event (EC): the fields read from the log line (strings), the fields the pipeline adds
 * (`domain`, `datetime`, `date`, `timestamp` as a number, `log_id`…) and the platform's fields.
 * A field that is absent is simply not a key of the object.
 */
export type AccessEvent = Record<string, string | number | undefined>;
