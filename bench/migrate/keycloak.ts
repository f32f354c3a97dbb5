import { join } from 'node:path';
import { ExportWriter, type ExportGenerator, fixturePasswords, fixtureText, type Person, person, uuidOf } from './people';

/**
 * A Keycloak realm file with its users (`kc.sh export --users realm_file`) of the bench's
 * population, laid out as the fixture's (test/fixtures/migration/keycloak): password users with
 * the fixture's PBKDF2 credentials of known passwords (pbkdf2-sha256 and pbkdf2-sha512 in turn,
 * `secretData` / `credentialData` as JSON strings), Google and GitHub `federatedIdentities`
 * (alone, or beside a password), magic-link users without a credential, attributes, a realm role,
 * disabled users. Keycloak has no phone login: a phone user has a username and a `phoneNumber`
 * attribute but no email, and is skipped (`no-email`).
 */
const REALM = 'bench';

/** The fixture's PBKDF2 credentials whose password is known, with the password. */
function fixtureCredentials(): { credential: Record<string, unknown>; password: string }[] {
  const passwords = fixturePasswords('keycloak');
  const users: { id: string; credentials?: Record<string, unknown>[] }[] = JSON.parse(fixtureText('keycloak', 'demo-realm.json')).users;
  return users.flatMap((u) => {
    const credential = u.credentials?.find((c) => c.type === 'password' && String(c.credentialData).includes('"pbkdf2'));
    const password = passwords.get(u.id);
    return credential && password !== undefined ? [{ credential, password }] : [];
  });
}

function keycloakUser(p: Person, credential: Record<string, unknown>): Record<string, unknown> {
  const id = uuidOf(p.i, 'd4');
  const [firstName, lastName] = p.name.split(' ');
  const attributes = { ...(p.metadata ? { plan: [p.metadata.plan], locale: [p.metadata.locale] } : {}), ...(p.phone ? { phoneNumber: [p.phone] } : {}) };
  return {
    id,
    createdTimestamp: p.createdMs,
    username: p.email ?? p.phone?.slice(1),
    enabled: !p.disabled,
    totp: false,
    emailVerified: p.verified,
    firstName,
    lastName,
    ...(p.email ? { email: p.email } : {}),
    ...(Object.keys(attributes).length > 0 ? { attributes } : {}),
    credentials: p.kind === 'password' || p.kind === 'linked' ? [{ ...credential, id: uuidOf(p.i, 'e5'), createdDate: p.createdMs + 1000 }] : [],
    disableableCredentialTypes: [],
    requiredActions: [],
    ...(p.social ? { federatedIdentities: [{ identityProvider: p.social.provider, userId: p.social.id, userName: p.email }] } : {}),
    realmRoles: [`default-roles-${REALM}`, ...(p.role ? [p.role] : [])],
    notBefore: 0,
    groups: [],
  };
}

export const keycloak: ExportGenerator = {
  source: 'keycloak',
  format: 'realm file JSON (users inside)',
  mix: ['password', 'social', 'linked', 'metadata', 'roles', 'disabled'],
  async write(dir, n) {
    const credentials = fixtureCredentials();
    const out = new ExportWriter(join(dir, `${REALM}-realm.json`));
    const roles = [`default-roles-${REALM}`, 'offline_access', 'uma_authorization', 'member'].map((name) => ({ name }));
    const head = JSON.stringify({ id: REALM, realm: REALM, enabled: true, roles: { realm: roles } }, null, 2);
    await out.write(`${head.slice(0, -2)},\n  "users": [\n`);
    for (let i = 0; i < n; i++) {
      const user = keycloakUser(person(i), credentials[i % credentials.length].credential);
      await out.write(`${i === 0 ? '' : ',\n'}    ${JSON.stringify(user, null, 2).replace(/\n/g, '\n    ')}`);
    }
    await out.write('\n  ]\n}\n');
    await out.close();
    return { file: out.file, companions: {}, probe: { sourceId: uuidOf(0, 'd4'), password: credentials[0].password } };
  },
};
