import { accept, refuse } from './fields';
import { type BcryptParams, bcryptFormat } from '../bcrypt';
import type { PasswordLimits } from '../limits';
import { bcryptCostBound } from './bcrypt-sha256';
import type { FormParse, HashForm } from './form';

/** `$wp`, then a bcrypt hash of one of the revisions PHP's `password_hash` and its verifiers write. */
const SHAPE = /^\$wp\$2[aby]\$/;
/** How the bcrypt parse begins its texts; the reason is what follows. */
const BCRYPT_TEXT_PREFIX = `Password hash is in invalid ${bcryptFormat.formatName} format: `;

/**
 * `$wp$2y$<cost>$<salt><hash>` (WordPress ≥ 6.8): bcrypt of the base64 HMAC-SHA384 of the password.
 * The bcrypt part is parsed as a plain bcrypt hash is (`../bcrypt.ts`). WordPress ≤ 6.7's `$P$` is
 * `phpassPForm` (`./phpass.ts`).
 */
export const wordpressBcryptForm: HashForm<BcryptParams> = {
  marker: /^\$wp\$/,

  parse(encoded: string): FormParse<BcryptParams> {
    if (!SHAPE.test(encoded)) {
      return refuse('expected $wp followed by a bcrypt hash');
    }
    const parsed = bcryptFormat.parse(encoded.slice('$wp'.length));
    if (!parsed.ok) {
      return refuse(parsed.message.replace(BCRYPT_TEXT_PREFIX, ''));
    }
    return accept(parsed.params);
  },

  bound(params: BcryptParams, limits: PasswordLimits): string | undefined {
    return bcryptCostBound(params.cost, limits);
  },
};
