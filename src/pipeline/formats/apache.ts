/**
 * Apache dictionary (`Log-Format-apache`, reference 2.3) plus the usual mod_log_config directives
 * whose meaning and shape are unambiguous. The reference lacked `%s` and `%m` (they stayed literal,
 * so no line matched).
 */
import {
  BRACKETED_DATE_PATTERN,
  HOST_PATTERN,
  readLetterToken,
  REQUEST_PATTERN,
  SAMPLE_DATE,
  SAMPLE_HOST,
  SAMPLE_URL,
  URL_PATTERN,
} from './ezproxy.js';
import type { Dialect, Directive } from './types.js';

export const APACHE_DIRECTIVES: ReadonlyMap<string, Directive> = new Map([
  // reference table
  ['h', { property: 'host', pattern: HOST_PATTERN, sample: SAMPLE_HOST }],
  ['l', { property: 'identd', pattern: '([a-zA-Z0-9\\-]+)', sample: 'ident' }],
  // accepts LDAP DNs such as uid=x,ou=people,dc=u,dc=fr
  ['u', { property: 'login', pattern: '([a-zA-Z0-9@.\\-_%=,]+)', sample: 'uid=jdoe,ou=people,dc=example,dc=org' }],
  ['b', { property: 'size', pattern: '([0-9]+|\\-)', sample: '1234' }],
  ['U', { property: 'url', pattern: URL_PATTERN, sample: SAMPLE_URL }],
  ['r', { property: 'url', pattern: REQUEST_PATTERN, sample: `GET ${SAMPLE_URL} HTTP/1.1` }],
  ['t', { property: 'datetime', pattern: BRACKETED_DATE_PATTERN, sample: `[${SAMPLE_DATE}]` }],
  ['>s', { property: 'status', pattern: '([0-9]+)', sample: '200' }],
  // usual mod_log_config directives
  ['s', { property: 'status', pattern: '([0-9]+)', sample: '200' }],
  ['a', { property: 'host', pattern: HOST_PATTERN, sample: SAMPLE_HOST }],
  ['A', { property: 'serverIp', pattern: '([a-fA-F0-9.:]+)', sample: '198.51.100.7' }],
  ['m', { property: 'method', pattern: '([A-Z]+)', sample: 'GET' }],
  ['H', { property: 'protocol', pattern: '([A-Za-z]+\\/[0-9.]+)', sample: 'HTTP/1.1' }],
  // the query string with its `?`, or nothing (then the field is absent)
  ['q', { property: 'query', pattern: '((?:\\?[^ ]*)?)', sample: '?a=1' }],
  ['v', { property: 'serverName', pattern: '([a-zA-Z0-9.\\-]+)', sample: 'proxy.example.org' }],
  ['V', { property: 'serverName', pattern: '([a-zA-Z0-9.\\-]+)', sample: 'proxy.example.org' }],
  ['p', { property: 'port', pattern: '([0-9]+)', sample: '443' }],
  ['D', { property: 'responseTimeMicros', pattern: '([0-9]+)', sample: '2102000' }],
  ['T', { property: 'responseTimeSeconds', pattern: '([0-9]+)', sample: '2' }],
  ['B', { property: 'size', pattern: '([0-9]+)', sample: '1234' }],
  ['O', { property: 'bytesSent', pattern: '([0-9]+)', sample: '1500' }],
  ['I', { property: 'bytesReceived', pattern: '([0-9]+)', sample: '420' }],
]);

export const apacheDialect: Dialect = {
  family: 'apache',
  label: 'Apache',
  readToken: (literal, position) => readLetterToken(literal, position, 'Apache', APACHE_DIRECTIVES, true),
};
