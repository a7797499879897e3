/**
 * Bibliopam (`Log-Format-bibliopam`): the comma-separated library-proxy format (Sciences Po),
 * written with the Apache dictionary and the custom forms. The reference ignored this header and
 * only met the format through auto-detection (reference 2.6 #4).
 */
import { APACHE_DIRECTIVES } from './apache.js';
import { readLetterToken } from './ezproxy.js';
import type { Dialect } from './types.js';

/** The standard Bibliopam format (reference 2.6 #4), used for the header values `standard` and empty. */
export const BIBLIOPAM_STANDARD_FORMAT =
  '%{timestamp}<[0-9]+>,%h,%b,%<"?>%{ress-name}<[a-zA-Z0-9+& :,.\'éèàç-]+>%<"?>,%U,%>s,' +
  '%<"?>%{mt}<[a-zA-Z0-9+/;= .-]+>%<"?>,%<"?>%{profil}<[a-zA-Z0-9/ _éèàç-]*>%<"?>,' +
  '%{uid}<[a-zA-Z0-9]*>,%{session-id}<[a-zA-Z0-9]*>%<,?>';

/** The format a `Log-Format-bibliopam` value stands for. */
export function bibliopamLiteral(value: string): string {
  const trimmed = value.trim();
  return trimmed === '' || trimmed.toLowerCase() === 'standard' ? BIBLIOPAM_STANDARD_FORMAT : value;
}

export const bibliopamDialect: Dialect = {
  family: 'bibliopam',
  label: 'Bibliopam',
  readToken: (literal, position) => readLetterToken(literal, position, 'Bibliopam', APACHE_DIRECTIVES, true),
};
