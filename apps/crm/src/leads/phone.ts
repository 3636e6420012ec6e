import { CountryCode, parsePhoneNumberFromString } from 'libphonenumber-js/max';

/**
 * E.164 form of a phone number, reading national numbers in the lead's country.
 * Returns null for a number that is not a valid phone number.
 */
export function toE164(raw: string, country?: string | null): string | null {
  const parsed = parsePhoneNumberFromString(raw, { defaultCountry: (country?.toUpperCase() as CountryCode) || undefined });
  return parsed && parsed.isValid() ? parsed.number : null;
}
