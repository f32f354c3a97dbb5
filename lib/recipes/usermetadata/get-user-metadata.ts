import type { JsonObject } from '../../storage/model';
import type { Deps } from '../deps';

/** `GET /recipe/user/metadata`: the user id's metadata, `{}` when it has none (any id: no user need exist, as in the core). */
export async function getUserMetadata(deps: Pick<Deps, 'metadata'>, userId: string): Promise<{ status: 'OK'; metadata: JsonObject }> {
  return { status: 'OK', metadata: (await deps.metadata.getMetadata(userId))?.metadata ?? {} };
}
