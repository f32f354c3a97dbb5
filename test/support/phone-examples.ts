import { getCountryCallingCode, type CountryCode } from 'libphonenumber-js';

/** libphonenumber-js's example mobile number of every country (national digits). */
const examples = require('libphonenumber-js/examples.mobile.json') as Record<string, string>;

/**
 * Every country's example number written seven ways: plain, spaced, with a national `(0)` or `0`
 * prefix, dashed, one digit too many and two too few. The phone suites compare each answer (or
 * refusal) with the full library's.
 */
export function examplesWrittenSevenWays(): string[] {
  return Object.entries(examples).flatMap(([country, national]) => {
    const cc = getCountryCallingCode(country as CountryCode);
    return [
      `+${cc}${national}`,
      `+${cc} ${national}`,
      `+${cc} (0) ${national}`,
      `+${cc}0${national}`,
      `+${cc}-${national.slice(0, 3)}-${national.slice(3)}`,
      `+${cc}${national}1`,
      `+${cc}${national.slice(0, -2)}`,
    ];
  });
}
