import { TENANT_CACHE_MS } from '../../lib/recipes/multitenancy/tenant-cache';

/**
 * Waits until `TENANT_CACHE_MS` have passed since `since` (ms epoch, taken before a change was
 * sent): every read a function cached before the change is then expired, so a `GET …/tenant/v2`
 * sent afterwards reads the change, in whichever function (container) it runs. The local server
 * runs on this machine's clock; at most 5 s, less whatever the test spent since.
 */
export async function pastTenantCache(since: number): Promise<void> {
  while (Date.now() < since + TENANT_CACHE_MS) await new Promise((r) => setTimeout(r, since + TENANT_CACHE_MS - Date.now() + 1));
}
