/**
 * The service's status codes: the reference's table (same numbers and meanings, so that existing
 * scripts keep matching them) plus logsift's own from 4027 on. Served by /info/codes.
 */
export interface StatusCodeInfo {
  readonly message: string;
  /** HTTP status answered with this code */
  readonly http: number;
}

export const STATUS_CODES = {
  4001: { message: 'Got no content from the client', http: 400 },
  4002: { message: 'Error while decompressing the file (was it properly compressed?)', http: 400 },
  4003: { message: 'Line format was not recognized', http: 400 },
  4004: { message: 'Hash not supported', http: 400 },
  4005: { message: 'Encoding not supported', http: 406 },
  4006: { message: 'Requested format(s) not supported', http: 406 },
  4007: { message: 'Multipart request error', http: 400 },
  4008: { message: 'User-Fields: missing header User-Field-Src', http: 400 },
  4009: { message: 'User-Fields: missing header User-Field-Sep', http: 400 },
  4010: { message: 'User-Fields: missing header User-Field-Dest-xxx', http: 400 },
  4011: { message: 'User-Fields: doublons in fields names', http: 400 },
  4012: { message: 'Output-Fields: empty field', http: 400 },
  4013: { message: 'Output-Fields: bad operator (use + or - before each field)', http: 400 },
  4014: { message: 'Log lines are not chronologically ordered', http: 400 },
  4015: { message: 'Requested charset for request is not supported', http: 406 },
  4016: { message: 'Requested charset for response is not supported', http: 406 },
  4019: { message: 'Geoip: bad field', http: 400 },
  4020: { message: 'Header-Fields: bad value', http: 400 },
  4021: { message: 'Unsupported notification type', http: 406 },
  4022: { message: 'No line breaks detected', http: 400 },
  4023: { message: 'A job with the same ID already exists', http: 409 },
  4024: { message: 'Invalid middleware name', http: 400 },
  4025: { message: 'Middleware not found', http: 400 },
  4026: { message: 'Predefined settings not found', http: 400 },
  4027: { message: 'Invalid log format', http: 400 },
  4028: { message: 'Invalid date format', http: 400 },
  4029: { message: 'Unknown reject category in Reject-Files', http: 400 },
  4030: { message: 'Unknown traces level', http: 400 },
  4031: { message: 'Invalid double-click setting', http: 400 },
  4032: { message: 'Invalid header value', http: 400 },
  4033: { message: 'Unknown platform', http: 400 },
  4034: { message: 'Upload too large', http: 413 },
  // no 4035/4036: a too long line is the reference's 4022, and a bad Extract header is 4032
  4037: { message: 'The upload stopped sending data', http: 408 },
  4038: { message: 'Processing a batch of lines took too long (a regular expression may be too costly)', http: 422 },
  4039: { message: 'The client closed the connection', http: 499 },
  4040: { message: 'The client stopped reading the answer', http: 408 },
  5000: { message: 'Internal error', http: 500 },
  5001: { message: 'A problem occured when trying to format the results', http: 500 },
  5002: { message: 'A parsing worker failed', http: 500 },
  5003: { message: 'The service is shutting down', http: 503 },
  5004: { message: 'Too many jobs are running, try again later', http: 503 },
  // VAR_DIR's disk full or not writable, the database locked by another process or damaged
  5005: { message: 'The service cannot write its storage', http: 503 },
  // DELETE /api/admin/jobs/{id}: a job whose client keeps it open for ever (ezPAARSE-Response-Timeout: 0)
  5006: { message: 'An administrator stopped the job', http: 503 },
} as const satisfies Record<number, StatusCodeInfo>;

export type StatusCode = keyof typeof STATUS_CODES;

/** The codes of a job stopped from outside (its client, the shutdown, an administrator): stopped, not failed. */
export const STOPPED_FROM_OUTSIDE: ReadonlySet<number> = new Set([4039, 4040, 5003, 5006]);

/**
 * An error with a status code of the table. `detail` says what to fix and goes into the
 * Service-Status-Message header and the report after the table's message (`<message>: <detail>`):
 * it names the header and the value at fault and what would do, without saying the table's
 * message again (not `Unknown platform: no platform named "x"`, but `Unknown platform:
 * Force-Parser: "x" (see /info/platforms)`).
 */
export class StatusError extends Error {
  readonly code: StatusCode;
  readonly http: number;
  readonly detail?: string;

  constructor(code: StatusCode, detail?: string) {
    const info = STATUS_CODES[code];
    super(detail ? `${info.message}: ${detail}` : info.message);
    this.name = 'StatusError';
    this.code = code;
    this.http = info.http;
    this.detail = detail;
  }
}

export function isStatusError(err: unknown): err is StatusError {
  return err instanceof StatusError;
}
