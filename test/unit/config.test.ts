import { GetParametersCommand, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { configFromEnv, createConfigLoader, parseApiKeys } from '../../lib/config/config';
import { createLogger } from '../../lib/log/logger';

describe('configuration', () => {
  it('uses the documented defaults', () => {
    const c = configFromEnv({}, {});
    expect(c.passwordless).toEqual({ codeLifetimeMs: 900000, maxCodeInputAttempts: 5 });
    expect(c.password.ownHash).toEqual({ memoryKiB: 19456, iterations: 2, parallelism: 1 });
    expect(c.password.rehashOnSignin).toBe(true);
    expect(c.apiKeys).toEqual([]);
    expect(c.signerKey).toBeUndefined();
  });

  it('reads overrides and refuses malformed values, naming the variable', () => {
    const c = configFromEnv({ PASSWORDLESS_CODE_LIFETIME: '60000', PASSWORD_REHASH_ON_SIGNIN: 'off', BCRYPT_MAX_COST: '12' }, {});
    expect(c.passwordless.codeLifetimeMs).toBe(60000);
    expect(c.password.rehashOnSignin).toBe(false);
    expect(c.password.limits.bcryptMaxCost).toBe(12);
    expect(() => configFromEnv({ PASSWORDLESS_MAX_CODE_INPUT_ATTEMPTS: 'many' }, {})).toThrow('PASSWORDLESS_MAX_CODE_INPUT_ATTEMPTS must be an integer');
    expect(() => configFromEnv({ PASSWORD_REHASH_ON_SIGNIN: 'maybe' }, {})).toThrow('PASSWORD_REHASH_ON_SIGNIN must be true or false');
  });

  it('splits API keys on commas and refuses short or odd keys without echoing them', () => {
    expect(parseApiKeys(' aaaaaaaaaaaaaaaaaaaa , bbbbbbbbbbbbbbbbbbbb=')).toEqual(['aaaaaaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbbbbbb=']);
    expect(() => parseApiKeys('short')).toThrow(/at least 20 characters/);
    try {
      parseApiKeys('has_underscore_0123456789');
    } catch (err) {
      expect((err as Error).message).not.toContain('has_underscore');
    }
  });
});

describe('secrets from SSM Parameter Store', () => {
  const ssm = mockClient(SSMClient);
  afterEach(() => ssm.reset());
  const env = { API_KEYS_PARAMETER: '/auth/dev/api_keys', SIGNER_KEY_PARAMETER: '/auth/dev/signer', API_KEYS: 'ignored-when-ssm-is-used-000' };

  it('reads both parameters with decryption in one call and caches them per cold start', async () => {
    ssm.on(GetParametersCommand).resolves({
      Parameters: [
        { Name: '/auth/dev/api_keys', Value: 'ssm-key-0123456789abcdefgh' },
        { Name: '/auth/dev/signer', Value: 'c2lnbmVy' },
      ],
    });
    let now = 0;
    const load = createConfigLoader(env, new SSMClient({ region: 'us-east-1' }), () => now);
    const config = await load();
    expect(config.apiKeys).toEqual(['ssm-key-0123456789abcdefgh']);
    expect(config.signerKey).toBe('c2lnbmVy');
    await load();
    expect(ssm.commandCalls(GetParametersCommand)).toHaveLength(1);
    expect(ssm.commandCalls(GetParametersCommand)[0].args[0].input).toEqual({
      Names: ['/auth/dev/api_keys', '/auth/dev/signer'],
      WithDecryption: true,
    });
    now += 6 * 60 * 1000;
    await load();
    expect(ssm.commandCalls(GetParametersCommand)).toHaveLength(2);
  });

  it('treats a missing parameter as not configured (the API then fails closed)', async () => {
    ssm.on(GetParametersCommand).resolves({ Parameters: [], InvalidParameters: ['/auth/dev/api_keys', '/auth/dev/signer'] });
    const config = await createConfigLoader(env, new SSMClient({ region: 'us-east-1' }))();
    expect(config.apiKeys).toEqual([]);
    expect(config.signerKey).toBeUndefined();
  });

  it('propagates an SSM failure and tries again on the next request', async () => {
    ssm.on(GetParametersCommand).rejectsOnce(new Error('throttled')).resolves({ Parameters: [{ Name: '/auth/dev/api_keys', Value: 'ssm-key-0123456789abcdefgh' }] });
    const load = createConfigLoader(env, new SSMClient({ region: 'us-east-1' }));
    await expect(load()).rejects.toThrow('throttled');
    expect((await load()).apiKeys).toEqual(['ssm-key-0123456789abcdefgh']);
  });
});

describe('the logger', () => {
  it('writes one JSON line per event and redacts secret-named fields', () => {
    const lines: string[] = [];
    const log = createLogger({ route: 'r' }, (l) => lines.push(l)).child({ requestId: 'req-1' });
    log.info('hello', { password: 'hunter2', passwordHash: '$2a$...', linkCode: 'abc', statusCode: 200 });
    const entry = JSON.parse(lines[0]);
    expect(entry).toMatchObject({ level: 'info', message: 'hello', route: 'r', requestId: 'req-1', statusCode: 200 });
    expect(lines[0]).not.toContain('hunter2');
    expect(lines[0]).not.toContain('$2a$');
    expect(entry.linkCode).toBe('[redacted]');
  });
});
