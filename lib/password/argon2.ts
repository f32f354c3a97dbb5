import { decodeBase64Strict, toBase64NoPadding } from './base64';
import type { PasswordLimits } from './limits';
import type { HashFormat, ParseResult } from './types';

/** The three Argon2 variants. */
export type Argon2Variant = 'argon2id' | 'argon2i' | 'argon2d';

/** A parsed Argon2 PHC string. */
export interface Argon2Params {
  variant: Argon2Variant;
  /** 19 (0x13) or 16 (0x10); a PHC string without `v=` means 16. */
  version: 16 | 19;
  /** `m=`, KiB. */
  memoryKiB: number;
  /** `t=`, passes over memory. */
  iterations: number;
  /** `p=`, lanes. */
  parallelism: number;
  salt: Buffer;
  hash: Buffer;
}

const FORMAT_NAME = 'Argon2';
const IDENTIFIER = /^\$argon2/;
const VARIANT = /^\$(argon2id|argon2i|argon2d)\$/;
const VERSION = /^v=(16|19)$/;
const PARAMS = /^m=(0|[1-9]\d{0,9}),t=(0|[1-9]\d{0,9}),p=(0|[1-9]\d{0,9})$/;
const FORM = '$argon2id$v=19$m=<memory KiB>,t=<iterations>,p=<parallelism>$<salt>$<hash>';
/** Minimums and maximums of the Argon2 specification (RFC 9106, section 3.1). */
const MIN_SALT_BYTES = 8;
const MIN_HASH_BYTES = 4;
const MIN_MEMORY_KIB_PER_LANE = 8;
const MAX_PARALLELISM = 0xffffff;
const MAX_UINT32 = 0xffffffff;

function invalid(reason: string): { ok: false; message: string } {
  return { ok: false, message: `Password hash is in invalid ${FORMAT_NAME} format: ${reason}` };
}

/**
 * The normalised PHC string: `v=` always written (so a missing `v=` is stored as the
 * `v=16` it means), parameters without leading zeros, unpadded standard base64.
 */
export function formatArgon2(params: Argon2Params): string {
  return (
    `$${params.variant}$v=${params.version}` +
    `$m=${params.memoryKiB},t=${params.iterations},p=${params.parallelism}` +
    `$${toBase64NoPadding(params.salt)}$${toBase64NoPadding(params.hash)}`
  );
}

/**
 * Argon2 PHC strings (`$argon2id$`, `$argon2i$`, `$argon2d$`, version 19 or 16); checked with
 * @node-rs/argon2 (`./verify.ts`), which honours the variant, version and parameters written in
 * the string.
 */
export const argon2Format: HashFormat<Argon2Params> = {
  name: 'argon2',
  formatName: FORMAT_NAME,

  matches(encoded: string): boolean {
    return IDENTIFIER.test(encoded);
  },

  parse(encoded: string): ParseResult<Argon2Params> {
    const variant = VARIANT.exec(encoded);
    if (!variant) {
      return invalid('it must start with $argon2id$, $argon2i$ or $argon2d$');
    }
    const segments = encoded.slice(variant[0].length).split('$');
    let version: 16 | 19 = 16;
    if (segments[0].startsWith('v=')) {
      const versionMatch = VERSION.exec(segments[0]);
      if (!versionMatch) {
        return invalid('the version must be v=19 or v=16');
      }
      version = Number(versionMatch[1]) as 16 | 19;
      segments.shift();
    }
    if (segments.length !== 3) {
      return invalid(`it must have the form ${FORM}`);
    }
    const [paramText, saltText, hashText] = segments;
    const paramMatch = PARAMS.exec(paramText);
    if (!paramMatch) {
      return invalid('the parameters must be m=, t= and p=, in that order, as decimal integers without leading zeros');
    }
    const [memoryKiB, iterations, parallelism] = paramMatch.slice(1).map(Number);
    if (iterations < 1 || iterations > MAX_UINT32) {
      return invalid('t (iterations) must be between 1 and 4294967295');
    }
    if (parallelism < 1 || parallelism > MAX_PARALLELISM) {
      return invalid('p (parallelism) must be between 1 and 16777215');
    }
    if (memoryKiB < MIN_MEMORY_KIB_PER_LANE * parallelism || memoryKiB > MAX_UINT32) {
      return invalid('m (memory) must be at least 8 KiB per lane (8·p) and at most 4294967295');
    }
    const salt = decodeBase64Strict(saltText, 'standard');
    if (!salt) {
      return invalid('the salt must be standard base64 (A-Z a-z 0-9 + /)');
    }
    if (salt.length < MIN_SALT_BYTES) {
      return invalid(`the salt must be at least ${MIN_SALT_BYTES} bytes`);
    }
    const hash = decodeBase64Strict(hashText, 'standard');
    if (!hash) {
      return invalid('the hash must be standard base64 (A-Z a-z 0-9 + /)');
    }
    if (hash.length < MIN_HASH_BYTES) {
      return invalid(`the hash must be at least ${MIN_HASH_BYTES} bytes`);
    }
    const params: Argon2Params = {
      variant: variant[1] as Argon2Variant,
      version,
      memoryKiB,
      iterations,
      parallelism,
      salt,
      hash,
    };
    return { ok: true, params, stored: formatArgon2(params) };
  },

  checkLimits(params: Argon2Params, limits: PasswordLimits): string | undefined {
    if (params.memoryKiB > limits.argon2MaxMemoryKiB) {
      return `Password hash Argon2 memory m=${params.memoryKiB} KiB is above the maximum of ${limits.argon2MaxMemoryKiB} KiB`;
    }
    if (params.iterations > limits.argon2MaxIterations) {
      return `Password hash Argon2 iterations t=${params.iterations} is above the maximum of ${limits.argon2MaxIterations}`;
    }
    if (params.parallelism > limits.argon2MaxParallelism) {
      return `Password hash Argon2 parallelism p=${params.parallelism} is above the maximum of ${limits.argon2MaxParallelism}`;
    }
    return undefined;
  },
};
