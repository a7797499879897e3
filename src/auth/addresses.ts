/**
 * Mail addresses as account names: ASCII local part with the usual mail symbols, one `@`,
 * then at least two dot-separated labels of letters, digits and inner hyphens.
 */
const ADDRESS = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

export const ADDRESS_MAX_LENGTH = 254;

/** The account name for `raw` (trimmed, lower-cased), or undefined when it is not a mail address. */
export function normaliseAddress(raw: string): string | undefined {
  const address = raw.trim().toLowerCase();
  if (address.length > ADDRESS_MAX_LENGTH) return undefined;
  if (address.indexOf('@') > 64) return undefined;
  return ADDRESS.test(address) ? address : undefined;
}
