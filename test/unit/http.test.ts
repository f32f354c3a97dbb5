import { ROUTES } from '../../infra/routes';
import { isValidApiKey, presentedApiKey } from '../../lib/http/api-key';
import { createRouter } from '../../lib/http/router';
import { normalisePath, parseTenantId, resolvePath } from '../../lib/http/tenant-path';

const paths = new Set(['/recipe/signinup/code', '/users/by-accountinfo', '/hello']);

describe('resolvePath', () => {
  it.each([
    ['/recipe/signinup/code', { routePath: '/recipe/signinup/code', tenantId: 'public' }],
    ['/RECIPE/SignInUp/Code//', { routePath: '/recipe/signinup/code', tenantId: 'public' }],
    ['/t1/recipe/signinup/code', { routePath: '/recipe/signinup/code', tenantId: 't1' }],
    ['/appid-public/t1/recipe/signinup/code', { routePath: '/recipe/signinup/code', tenantId: 't1' }],
    ['/appid-public/recipe/signinup/code', { routePath: '/recipe/signinup/code', tenantId: 'public' }],
    ['/public/users/by-accountinfo', { routePath: '/users/by-accountinfo', tenantId: 'public' }],
  ])('resolves %s', (raw, expected) => {
    expect(resolvePath(raw, paths)).toEqual(expected);
  });

  it.each(['/', '/recipe', '/recipe/signinup', '/a/b/recipe/signinup/code', '/recipe/signinup/code/extra'])('finds no route for %s', (raw) => {
    expect(resolvePath(raw, paths)).toBeUndefined();
  });

  it.each(['/appid-other/recipe/signinup/code', '/bad_tenant/recipe/signinup/code', '/recipe/recipe/signinup/code', '/appid-x/hello'])(
    'refuses %s with AppId or tenantId not found',
    (raw) => {
      expect(() => resolvePath(raw, paths)).toThrow('AppId or tenantId not found');
    },
  );

  it('normalises paths and tenant ids', () => {
    expect(normalisePath('/')).toBe('/');
    expect(normalisePath('/A/b/')).toBe('/a/b');
    expect(parseTenantId(' Shop-1 ')).toBe('shop-1');
    expect(parseTenantId('x'.repeat(65))).toBeUndefined();
    expect(parseTenantId('hello')).toBeUndefined();
  });
});

describe('the router over the route table', () => {
  const route = createRouter(ROUTES);
  it('routes every entry of the table by method and path', () => {
    for (const r of ROUTES) expect(route(r.method, r.path).id).toBe(r.id);
  });
  it('distinguishes 404 from 405', () => {
    expect(() => route('GET', '/nope')).toThrow('Not found');
    expect(() => route('DELETE', '/recipe/user')).toThrow('Method not supported');
  });
  it('has unique ids and unique method+path pairs', () => {
    expect(new Set(ROUTES.map((r) => r.id)).size).toBe(ROUTES.length);
    expect(new Set(ROUTES.map((r) => `${r.method} ${r.path}`)).size).toBe(ROUTES.length);
  });
});

describe('API keys', () => {
  const keys = ['first-key-0123456789abcdef', 'second-key-0123456789abcdef'];
  it('accepts any configured key and nothing else', () => {
    expect(isValidApiKey(keys[0], keys)).toBe(true);
    expect(isValidApiKey(keys[1], keys)).toBe(true);
    expect(isValidApiKey(keys[0] + 'x', keys)).toBe(false);
    expect(isValidApiKey(keys[0].slice(1), keys)).toBe(false);
    expect(isValidApiKey('', keys)).toBe(false);
    expect(isValidApiKey(undefined, keys)).toBe(false);
    expect(isValidApiKey(keys[0], [])).toBe(false);
  });
  it('reads the api-key header, else a Bearer token', () => {
    expect(presentedApiKey({ 'api-key': 'k1' })).toBe('k1');
    expect(presentedApiKey({ authorization: 'Bearer  k2 ' })).toBe('k2');
    expect(presentedApiKey({ authorization: 'Basic k3' })).toBeUndefined();
    expect(presentedApiKey({})).toBeUndefined();
  });
});
