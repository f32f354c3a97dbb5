import { iteratedDigestCheck } from './phpass';

/** Recomputes a Drupal 7 `$S$` hash (SHA-512) and compares it in constant time. */
export const checkDrupal = iteratedDigestCheck('sha512');
