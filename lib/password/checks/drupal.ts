import { iteratedDigestCheck } from './phpass';

/** Recomputes a Drupal 7 `$S$` hash (SHA-512) and compares it in constant time. */
export const drupalCheck = iteratedDigestCheck('sha512');
