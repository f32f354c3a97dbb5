import { join } from 'node:path';
import { ExportWriter, type ExportGenerator, type Person, person, uuidOf } from './people';

/**
 * `aws cognito-idp list-users` of the bench's population, as the AWS CLI v2 writes it (one
 * `{"Users":[…]}` document indented by 4, attributes as `{Name, Value}` strings, ISO dates with
 * µs: test/fixtures/migration/cognito), and the `--groups` file (`{"member": <list-users-in-group
 * output>}`). Cognito exports no password hash: password and magic-link users are native users
 * (CONFIRMED, imported to migrate their password at sign-in); Google users are federated
 * (`Google_<id>`, EXTERNAL_PROVIDER), a linked user a native one with a Google identity; GitHub is
 * no social provider of Cognito but an OIDC one, so its users are skipped
 * (`enterprise-connection`); phone users have no email; `custom:` attributes, disabled users.
 */
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000+00:00');

function cognitoUser(p: Person): Record<string, unknown> {
  const sub = uuidOf(p.i, 'c0');
  const federated = p.kind === 'social';
  const identity = p.social && {
    userId: p.social.id,
    providerName: p.social.provider === 'google' ? 'Google' : 'GitHub',
    providerType: p.social.provider === 'google' ? 'Google' : 'OIDC',
    issuer: null,
    primary: federated,
    dateCreated: p.createdMs,
  };
  const attributes: [string, string | undefined][] = [
    ['sub', sub],
    ['identities', identity && JSON.stringify([identity])],
    ['email', p.email],
    ['email_verified', p.email && String(p.verified)],
    ['phone_number', p.phone],
    ['phone_number_verified', p.phone && 'true'],
    ['name', p.name],
    ['custom:plan', p.metadata?.plan],
    ['locale', p.metadata?.locale],
  ];
  return {
    Username: federated && identity ? `${identity.providerName}_${identity.userId}` : sub,
    Attributes: attributes.filter(([, v]) => v !== undefined).map(([Name, Value]) => ({ Name, Value })),
    UserCreateDate: iso(p.createdMs),
    UserLastModifiedDate: iso(p.lastLoginMs),
    Enabled: !p.disabled,
    UserStatus: federated ? 'EXTERNAL_PROVIDER' : 'CONFIRMED',
  };
}

/** One user as the CLI prints it inside `"Users": [`: indented by 8, its lines by 4 more. */
const indented = (user: Record<string, unknown>) => `        ${JSON.stringify(user, null, 4).replace(/\n/g, '\n        ')}`;

export const cognito: ExportGenerator = {
  source: 'cognito',
  format: 'list-users JSON + --groups',
  mix: ['migrate-on-signin', 'social', 'linked', 'phone', 'metadata', 'roles', 'disabled'],
  async write(dir, n) {
    const users = new ExportWriter(join(dir, 'list-users.json'));
    const groups = new ExportWriter(join(dir, 'groups.json'));
    await users.write('{\n    "Users": [\n');
    await groups.write('{\n    "member": {\n        "Users": [\n');
    let members = 0;
    for (let i = 0; i < n; i++) {
      const p = person(i);
      const user = cognitoUser(p);
      await users.write(`${i === 0 ? '' : ',\n'}${indented(user)}`);
      if (p.role) await groups.write(`${members++ === 0 ? '' : ',\n'}    ${indented(user).replace(/\n/g, '\n    ')}`);
    }
    await users.write('\n    ]\n}\n');
    await groups.write('\n        ]\n    }\n}\n');
    await users.close();
    await groups.close();
    return { file: users.file, companions: { groups: groups.file } };
  },
};
