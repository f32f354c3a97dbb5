import { keyId, type Key } from '../keys';
import * as keys from '../keys';
import { TOKEN_ENTRY_TYPE, TOKEN_TYPE } from './dynamo-email-verification-store';
import { RESET_TOKEN_ENTRY_TYPE, RESET_TOKEN_TYPE } from './dynamo-password-reset-store';
import { RECOVERY_TOKEN_ENTRY_TYPE, RECOVERY_TOKEN_TYPE } from './dynamo-webauthn-recovery-store';

/**
 * Tokens kept as a pair (the token by its hash, an entry among the tokens of their owner), written
 * and deleted together: email verification, password reset and WebAuthn recovery tokens. What the
 * consistency check finds when one of a pair is missing.
 */
export type TokenPairProblemKind =
  | 'token-without-entry'
  | 'entry-without-token'
  | 'reset-token-without-entry'
  | 'reset-entry-without-token'
  | 'recovery-token-without-entry'
  | 'recovery-entry-without-token';

type Item = Readonly<Record<string, unknown>>;

/** Per item type: the other item of its pair, and what is wrong when it is missing. */
const PAIRS: Readonly<Record<string, { other: (i: Item) => Key; kind: TokenPairProblemKind; detail: string }>> = {
  [TOKEN_TYPE]: {
    other: (i) => ({ pk: keys.verificationTokensOf(i.tenantId as string, i.recipeUserId as string, i.email as string), sk: i.tokenHash as string }),
    kind: 'token-without-entry',
    detail: 'email verification token missing from the tokens of its login method and email',
  },
  [TOKEN_ENTRY_TYPE]: {
    other: (i) => keys.verificationToken(i.sk as string),
    kind: 'entry-without-token',
    detail: 'an entry of an email verification token that is gone',
  },
  [RESET_TOKEN_TYPE]: {
    other: (i) => ({ pk: keys.resetTokensOf(i.userId as string), sk: i.tokenHash as string }),
    kind: 'reset-token-without-entry',
    detail: 'password reset token missing from the tokens of its user',
  },
  [RESET_TOKEN_ENTRY_TYPE]: {
    other: (i) => keys.resetToken(i.sk as string),
    kind: 'reset-entry-without-token',
    detail: 'an entry of a password reset token that is gone',
  },
  [RECOVERY_TOKEN_TYPE]: {
    other: (i) => ({ pk: keys.webauthnRecoveryTokensOf(i.tenantId as string, i.email as string), sk: i.tokenHash as string }),
    kind: 'recovery-token-without-entry',
    detail: 'WebAuthn recovery token missing from the tokens of its email',
  },
  [RECOVERY_TOKEN_ENTRY_TYPE]: {
    other: (i) => keys.webauthnRecoveryToken(i.tenantId as string, i.sk as string),
    kind: 'recovery-entry-without-token',
    detail: 'an entry of a WebAuthn recovery token that is gone',
  },
};

/** The item types of token pairs. */
export const TOKEN_PAIR_TYPES: ReadonlySet<unknown> = new Set(Object.keys(PAIRS));

/** What is wrong with a token pair's item, given every item by `keyId`: its other half missing. */
export function tokenPairProblem(item: Item, byKey: ReadonlyMap<string, unknown>): { kind: TokenPairProblemKind; detail: string } | undefined {
  const pair = PAIRS[item.type as string];
  return pair && !byKey.has(keyId(pair.other(item))) ? { kind: pair.kind, detail: pair.detail } : undefined;
}
