import { inPool } from '../pool';
import { decideUsers, type Decided, type DuplicatesMode } from './collisions';
import { withoutServiceHeldPhones } from './mfa';
import type { BulkUserInput, MappedUser, Source } from './model';
import { scanExport, type Progress } from './plan';
import { ServiceError, type ServiceClient } from './service';
import { compareUser, methodKey, readsFor, serviceMethodKey, type ServiceDevice, type ServiceSide, type ServiceUserView } from './verify-compare';
import type { ExportIds, VerifyEntry, VerifyReport, VerifySummary } from './verify-report';

/**
 * `migrate verify` (SPEC §17c): the export read exactly as the import reads it (`scanExport`,
 * then `decideUsers`: the same mapping, collisions and verdicts; SMS factors on a phone another
 * service user holds dropped as the import drops them), and each user compared with the service
 * by its external id, a few users at a time (`inPool`). Only reads are sent:
 * `GET /user/id`, then, for a user the service has, `GET /recipe/user/metadata`,
 * `GET /<tenant>/recipe/user/roles` and `GET /recipe/totp/device/list` where the mapping has
 * metadata, roles or TOTP devices (and `GET /<tenant>/users/by-accountinfo` for an SMS factor's
 * phone, as the import asks); `--extra` pages `GET /<tenant>/users`.
 */

export interface VerifyRun {
  readonly source: Source;
  readonly service: ServiceClient;
  readonly tenant: string;
  readonly duplicates: DuplicatesMode;
  /** Users checked at once. */
  readonly concurrency: number;
  readonly report: VerifyReport;
  /** With `--extra`: the export's ids, filled while reading, then the service's users not among them are listed. */
  readonly exportIds?: ExportIds;
  readonly signal: AbortSignal;
  readonly onProgress?: (p: Progress) => void;
  /** Facts for the report's head (source, options). */
  readonly about: Record<string, unknown>;
}

export interface VerifyResult {
  readonly summary: VerifySummary;
  readonly exitCode: 0 | 1;
  readonly interrupted: boolean;
  /** Why the run stopped before checking every user (the service failed a read 5 times). */
  readonly stopped?: string;
}

/** Users read ahead of the checks, per unit of `--concurrency`: bounds memory, keeps every slot busy. */
const READ_AHEAD = 32;

/** The service's user for an id (the external id once mapped), or undefined. */
async function userById(service: ServiceClient, id: string): Promise<ServiceUserView | undefined> {
  const found = await service.ok('GET', `/user/id?${new URLSearchParams({ userId: id })}`);
  if (found.status === 'UNKNOWN_USER_ID_ERROR') return undefined;
  if (found.status !== 'OK' || typeof found.user?.id !== 'string') throw new ServiceError(`GET /user/id answered ${JSON.stringify(found.status)}`);
  return found.user;
}

/**
 * A user of a SuperTokens bulk file without an external id: the service user holding its first
 * login method's identity in the tenant (the service gave it an id of its own).
 */
async function userByIdentity(service: ServiceClient, tenant: string, user: BulkUserInput): Promise<ServiceUserView | undefined> {
  const first = Array.isArray(user.loginMethods) ? user.loginMethods[0] : undefined;
  if (!first) return undefined;
  const q = new URLSearchParams(
    first.recipeId === 'thirdparty'
      ? { thirdPartyId: String(first.thirdPartyId), thirdPartyUserId: String(first.thirdPartyUserId) }
      : first.email !== undefined
        ? { email: first.email }
        : { phoneNumber: String(first.phoneNumber) },
  );
  const found = await service.ok('GET', `/${tenant}/users/by-accountinfo?${q}`);
  const key = methodKey(first);
  return (found.users as ServiceUserView[]).find((u) => u.loginMethods.some((lm) => serviceMethodKey(lm) === key));
}

/** The id a user is looked up by: its external id (the source's id); none for a record without one (`#<n>`). */
const lookupId = (m: MappedUser): string | undefined => m.user?.externalUserId ?? (m.sourceId.startsWith('#') ? undefined : m.sourceId);

/** What the service holds for a user the import would import, read as the mapping calls for. */
async function readHeld(service: ServiceClient, tenant: string, user: ServiceUserView, mapped: BulkUserInput): Promise<ServiceSide> {
  const reads = readsFor(mapped, tenant);
  const id = new URLSearchParams({ userId: user.id });
  const metadata = reads.metadata ? ((await service.ok('GET', `/recipe/user/metadata?${id}`)).metadata as Record<string, unknown>) : undefined;
  const roles = reads.roles ? ((await service.ok('GET', `/${tenant}/recipe/user/roles?${id}`)).roles as string[]) : undefined;
  const devices = reads.devices ? ((await service.ok('GET', `/recipe/totp/device/list?${id}`)).devices as ServiceDevice[]) : undefined;
  return { user, metadata, roles, devices };
}

async function check(run: VerifyRun, { mapped, verdict }: Decided): Promise<VerifyEntry> {
  const { service, tenant } = run;
  const sourceId = mapped.sourceId;
  const id = lookupId(mapped);
  if (verdict) {
    const held = id !== undefined ? await userById(service, id) : mapped.user ? await userByIdentity(service, tenant, mapped.user) : undefined;
    const why = { reasonCode: verdict.code, reason: verdict.reason };
    return held ? { sourceId, outcome: 'unexpected', userId: held.id, ...why } : { sourceId, outcome: 'absent-as-planned', ...why };
  }
  // The import drops an SMS factor whose phone another user of the service holds: so does verify.
  const m = await withoutServiceHeldPhones(mapped, (phone) => service.phoneHolders(tenant, phone).catch(() => []));
  const user = m.user!;
  const held = id !== undefined ? await userById(service, id) : await userByIdentity(service, tenant, user);
  if (!held) return { sourceId, outcome: 'missing' };
  if (id === undefined) run.exportIds?.add(held.id);
  const differences = compareUser(user, id, await readHeld(service, tenant, held, user), tenant);
  return differences.length === 0 ? { sourceId, outcome: 'match', userId: held.id } : { sourceId, outcome: 'different', userId: held.id, differences };
}

/** `--extra`: every user of the tenant whose id is not the export's. */
async function listExtra(run: VerifyRun, ids: ExportIds): Promise<void> {
  let seen = 0;
  for await (const user of run.service.users(run.tenant)) {
    if (run.signal.aborted) return;
    if (!(await ids.has(user.id))) {
      run.report.add({
        userId: user.id,
        outcome: 'extra',
        loginMethods: user.loginMethods.map(serviceMethodKey),
      });
    }
    if (++seen % 500 === 0) run.onProgress?.({ phase: 'extra', done: seen, total: seen });
  }
}

export async function runVerify(run: VerifyRun): Promise<VerifyResult> {
  const { source, report, signal } = run;
  const { index, total } = await scanExport(source, signal, run.onProgress);
  let stopped: string | undefined;
  // Checked a few at a time, reported in the export's order (the terminal's first lines too).
  const checkAll = async (batch: Decided[]) => {
    const entries: (VerifyEntry | undefined)[] = [];
    try {
      await inPool([...batch.keys()], run.concurrency, async (i) => {
        if (!signal.aborted) entries[i] = await check(run, batch[i]);
      });
    } finally {
      for (const entry of entries) if (entry) report.add(entry);
      run.onProgress?.({ phase: 'verify', done: report.summary.total, total });
    }
  };
  try {
    let batch: Decided[] = [];
    for await (const decided of decideUsers(source.users(), index, run.duplicates)) {
      if (signal.aborted) break;
      const id = lookupId(decided.mapped);
      if (id !== undefined) run.exportIds?.add(id);
      batch.push(decided);
      if (batch.length >= run.concurrency * READ_AHEAD) {
        await checkAll(batch);
        batch = [];
      }
    }
    if (!signal.aborted) await checkAll(batch);
    if (run.exportIds && !signal.aborted) await listExtra(run, run.exportIds);
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    stopped = err.message;
  }
  await report.finish({
    ...run.about,
    ...(signal.aborted ? { interrupted: true } : {}),
    ...(stopped !== undefined ? { stopped } : {}),
  });
  const complete = !signal.aborted && stopped === undefined;
  return {
    summary: report.summary,
    exitCode: complete && report.toLookAt === 0 ? 0 : 1,
    interrupted: signal.aborted,
    ...(stopped !== undefined ? { stopped } : {}),
  };
}
