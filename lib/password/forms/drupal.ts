import { phpassStyleForm } from './phpass';

/**
 * `$S$`: Drupal 7 (and 8–10.0), phpass's loop with SHA-512, the 86-character encoding of the digest
 * cut to its first 43 (55 characters in all). Drupal 7 also verifies `$P$`/`$H$` (`./phpass.ts`);
 * Drupal 6 upgrades (`U$S$…`) are not accepted (SPEC §7b).
 */
export const drupalForm = phpassStyleForm('$S$', 55);
