import { parsePhoneNumberFromString } from 'libphonenumber-js/min';

/**
 * The country calling code of an E.164 phone (`'1'`, `'44'`, `'49'`…), read with libphonenumber's
 * table of codes; null when the number starts with no assigned code. Server-side only (the table
 * is not part of the browser-safe rules).
 */
export function callingCodeOf(phone: string): string | null {
  return parsePhoneNumberFromString(phone)?.countryCallingCode ?? null;
}
