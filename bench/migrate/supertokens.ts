import { join } from 'node:path';
import type { BulkLoginMethodInput } from '../../lib/migrate/model';
import { VENDOR_SCRYPT_PROJECT } from '../../test/fixtures/password-vectors';
import { hashVariants } from '../../test/support/bulk-users';
import { ExportWriter, type ExportGenerator, person } from './people';

/**
 * A SuperTokens bulk file (`{"users":[…]}`, the bulk-import body) of the bench's population: the
 * password users take every hash form of SPEC §7 in turn (bcrypt, Argon2, Firebase scrypt, made
 * by their own libraries: test/support/bulk-users.ts), a linked user's password login method is
 * primary beside its Google one, external ids, metadata and roles. A bulk file has no disabled
 * user: those are imported like the others.
 */
export const supertokens: ExportGenerator = {
  source: 'supertokens',
  format: 'bulk file JSON',
  mix: ['password', 'social', 'linked', 'phone', 'metadata', 'roles'],
  async write(dir, n) {
    const variants = hashVariants();
    const out = new ExportWriter(join(dir, 'bulk.json'));
    await out.write('{"users":[\n');
    for (let i = 0; i < n; i++) {
      const p = person(i);
      const variant = variants[i % variants.length];
      const at = { tenantIds: ['public'], timeJoinedInMSSinceEpoch: p.createdMs };
      const methods: BulkLoginMethodInput[] = [];
      if (p.kind === 'password' || p.kind === 'linked')
        methods.push({
          recipeId: 'emailpassword',
          ...at,
          isVerified: p.verified,
          email: p.email,
          passwordHash: variant.hash,
          hashingAlgorithm: variant.hashingAlgorithm,
          ...(p.social ? { isPrimary: true } : {}),
        });
      if (p.social)
        methods.push({ recipeId: 'thirdparty', ...at, isVerified: true, email: p.email, thirdPartyId: p.social.provider, thirdPartyUserId: p.social.id });
      if (p.kind === 'phone' || p.kind === 'magic-link')
        methods.push({ recipeId: 'passwordless', ...at, isVerified: p.verified, ...(p.phone ? { phoneNumber: p.phone } : { email: p.email }) });
      const user = {
        externalUserId: `st-${p.i}`,
        ...(p.metadata ? { userMetadata: { ...p.metadata, name: p.name } } : {}),
        ...(p.role ? { userRoles: [{ role: p.role, tenantIds: ['public'] }] } : {}),
        loginMethods: methods,
      };
      await out.write(`${i === 0 ? '' : ',\n'}${JSON.stringify(user)}`);
    }
    await out.write('\n]}\n');
    await out.close();
    return { file: out.file, companions: {}, probe: { sourceId: 'st-0', password: variants[0].password, signerKey: VENDOR_SCRYPT_PROJECT.signerKey } };
  },
};
