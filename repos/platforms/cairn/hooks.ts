import type { RuleHook } from '../../../src/platforms/rules/types.js';

/**
 * Some book slugs carry an ISBN-13 cut before its check digit (12 digits): the print identifier
 * is the full ISBN, so the check digit is computed (weights 1, 3, 1, 3…).
 */
export const hooks: Record<string, RuleHook> = {
  completeIsbn: ({ vars }) => {
    const digits = vars('isbn');
    if (typeof digits !== 'string' || !/^[0-9]{12}$/.test(digits)) return null;
    let sum = 0;
    for (let i = 0; i < 12; i++) sum += Number(digits[i]) * (i % 2 === 0 ? 1 : 3);
    return { print_identifier: digits + String((10 - (sum % 10)) % 10) };
  },
};
