import type { CreateCodeResult } from '../../lib/recipes/passwordless/create-code';
import type { ApiResponse, TestApi } from './api';

/** `/recipe/...` for the public tenant, `/<t>/recipe/...` otherwise. */
export const tenantPath = (tenantId: string | undefined, path: string): string => (tenantId ? `/${tenantId}${path}` : path);

/** Creates a code and fails the test unless the answer is OK. */
export async function createCode(api: TestApi, body: Record<string, unknown>, tenantId?: string) {
  const res = await api.post(tenantPath(tenantId, '/recipe/signinup/code'), body);
  if (res.status !== 200 || res.json?.status !== 'OK') throw new Error(`createCode failed: ${res.status} ${res.text}`);
  return res.json as Extract<CreateCodeResult, { status: 'OK' }>;
}

export function consumeLink(api: TestApi, code: { preAuthSessionId: string; linkCode: string }, tenantId?: string): Promise<ApiResponse> {
  return api.post(tenantPath(tenantId, '/recipe/signinup/code/consume'), {
    preAuthSessionId: code.preAuthSessionId,
    linkCode: code.linkCode,
  });
}

export function consumeInput(
  api: TestApi,
  code: { preAuthSessionId: string; deviceId: string },
  userInputCode: string,
  path = '/recipe/signinup/code/consume',
): Promise<ApiResponse> {
  return api.post(path, { preAuthSessionId: code.preAuthSessionId, deviceId: code.deviceId, userInputCode });
}

/** Signs a passwordless user in (or up) with a fresh code; returns the consume response body. */
export async function passwordlessSignIn(api: TestApi, identity: { email: string } | { phoneNumber: string }, tenantId?: string) {
  const code = await createCode(api, identity, tenantId);
  const res = await consumeLink(api, code, tenantId);
  if (res.json?.status !== 'OK') throw new Error(`consume failed: ${res.status} ${res.text}`);
  return res.json;
}

let counter = 0;
/** A unique email per call, so tests sharing a table never collide. */
export const uniqueEmail = (label = 'user'): string => `${label}-${Date.now().toString(36)}-${counter++}@example.com`;
/** A unique, valid US phone number per call. */
export const uniquePhone = (): string => `+1650555${String(1000 + (counter++ % 9000)).padStart(4, '0')}`;
