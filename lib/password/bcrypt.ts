import type { PasswordLimits } from './limits';
import type { HashFormat, ParseResult } from './types';

/** A parsed bcrypt hash (`$2a$10$<22 salt><31 hash>`). */
export interface BcryptParams {
  /** The revision letter: `a`, `b`, `x` or `y`. */
  revision: 'a' | 'b' | 'x' | 'y';
  /** log2 of the rounds. */
  cost: number;
  /** The 53 characters of salt and hash. */
  saltAndHash: string;
}

const FORMAT_NAME = 'BCrypt';
const IDENTIFIER = /^\$2[abxy]?\$/;
const REVISION = /^\$2([abxy])\$/;
const COST = /^\$2[abxy]\$(\d\d)\$/;
const FULL = /^\$2([abxy])\$(\d\d)\$([./A-Za-z0-9]{53})$/;
const ALPHABET = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** bcrypt's own cost range; the configurable limits narrow it. */
const ALGORITHM_MIN_COST = 4;
const ALGORITHM_MAX_COST = 31;

function invalid(reason: string): { ok: false; message: string } {
  return { ok: false, message: `Password hash is in invalid ${FORMAT_NAME} format: ${reason}` };
}

/**
 * The salt's 22nd character carries 2 bits and the hash's 31st carries 4: every bcrypt
 * writes the unused low bits as zero and compares the whole string, so a hash with other
 * bits set can never verify anywhere. Refusing it at import says so instead of failing
 * every sign-in later.
 */
function hasCanonicalPadding(saltAndHash: string): boolean {
  const saltLast = ALPHABET.indexOf(saltAndHash[21]);
  const hashLast = ALPHABET.indexOf(saltAndHash[52]);
  return saltLast % 16 === 0 && hashLast % 4 === 0;
}

/** bcrypt hashes (`$2a$`, `$2b$`, `$2x$`, `$2y$`); checked with bcryptjs (`./verify.ts`). */
export const bcryptFormat: HashFormat<BcryptParams> = {
  name: 'bcrypt',
  formatName: FORMAT_NAME,

  matches(encoded: string): boolean {
    return IDENTIFIER.test(encoded);
  },

  parse(encoded: string): ParseResult<BcryptParams> {
    if (!REVISION.test(encoded)) {
      return invalid('it must start with $2a$, $2b$, $2x$ or $2y$');
    }
    const cost = COST.exec(encoded);
    if (!cost) {
      return invalid("the cost must be two digits followed by '$'");
    }
    const costValue = Number(cost[1]);
    if (costValue < ALGORITHM_MIN_COST || costValue > ALGORITHM_MAX_COST) {
      return invalid('the cost must be between 04 and 31');
    }
    const full = FULL.exec(encoded);
    if (!full) {
      const body = encoded.slice(7);
      if (body.length !== 53) {
        return invalid(`the salt and hash must be 53 characters (22 salt + 31 hash), not ${body.length}`);
      }
      return invalid('the salt and hash may only contain the characters ./A-Za-z0-9');
    }
    const saltAndHash = full[3];
    if (!hasCanonicalPadding(saltAndHash)) {
      return invalid('the last character of the salt or of the hash has unused bits set');
    }
    return {
      ok: true,
      params: { revision: full[1] as BcryptParams['revision'], cost: costValue, saltAndHash },
      stored: encoded,
    };
  },

  checkLimits(params: BcryptParams, limits: PasswordLimits): string | undefined {
    if (params.cost > limits.bcryptMaxCost) {
      return `Password hash bcrypt cost ${params.cost} is above the maximum of ${limits.bcryptMaxCost}`;
    }
    if (params.cost < limits.bcryptMinCost) {
      return `Password hash bcrypt cost ${params.cost} is below the minimum of ${limits.bcryptMinCost}`;
    }
    return undefined;
  },
};
