import argon2 from 'argon2';
import { randomBytes } from 'node:crypto';

export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 1024;

// Basic auth cannot carry control characters, so such a password could never log in.
const CONTROL = /[\u0000-\u001f\u007f]/u;
const CLASSES = [/\p{Ll}/u, /\p{Lu}/u, /\p{Nd}/u, /[^\p{Ll}\p{Lu}\p{Nd}]/u];

/** The same password typed on two systems may come composed or decomposed: hash one form. */
function canonical(password: string): string {
  return password.normalize('NFC');
}

/** argon2id with the library's defaults (64 MiB, 3 passes, 4 lanes), salt and parameters in the PHC string. */
export function hashPassword(password: string): Promise<string> {
  return argon2.hash(canonical(password), { type: argon2.argon2id });
}

/** Constant-time check (inside argon2); a malformed hash is a failed check, not an error. */
export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, canonical(password));
  } catch {
    return false;
  }
}

/**
 * The password policy: 10 to 1024 characters, at least two of lower-case letters, upper-case
 * letters, digits and other characters, not containing the account's address or its local part.
 * Answers the machine code of the problem, or undefined when the password is acceptable.
 */
export function passwordProblem(password: string, username?: string): 'weakPassword' | 'invalidPassword' | undefined {
  const length = [...password].length;
  if (length > PASSWORD_MAX_LENGTH || CONTROL.test(password)) return 'invalidPassword';
  if (length < PASSWORD_MIN_LENGTH) return 'weakPassword';
  if (CLASSES.filter((re) => re.test(password)).length < 2) return 'weakPassword';
  if (username) {
    const lower = password.toLowerCase();
    const local = username.split('@')[0];
    if (lower.includes(username) || (local.length >= 4 && lower.includes(local))) return 'weakPassword';
  }
  return undefined;
}

/** A random password for a reset by an administrator: 144 bits from the system's CSPRNG. */
export function generatePassword(): string {
  for (;;) {
    const candidate = randomBytes(18).toString('base64url');
    if (passwordProblem(candidate) === undefined) return candidate;
  }
}
