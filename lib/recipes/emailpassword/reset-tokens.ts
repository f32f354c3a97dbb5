import type { RandomSource } from '../deps';
import { newVerificationToken, verificationTokenHash } from '../emailverification/tokens';

/**
 * A new password reset token: made as an email verification token is (384 random bits from the
 * CSPRNG, 128 characters of `[A-Za-z0-9_-]`; the core's are up to 128 URL-safe characters too).
 */
export const newResetToken = (random: RandomSource): string => newVerificationToken(random);

/** What is stored of a reset token: its SHA-256, hex. A leaked table holds no usable token. */
export const resetTokenHash = (token: string): string => verificationTokenHash(token);
