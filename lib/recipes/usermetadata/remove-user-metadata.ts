import type { Deps } from '../deps';

/** `POST /recipe/user/metadata/remove`: forgets the user id's metadata (`OK` also when it had none). */
export async function removeUserMetadata(deps: Pick<Deps, 'metadata'>, userId: string): Promise<{ status: 'OK' }> {
  await deps.metadata.removeMetadata(userId);
  return { status: 'OK' };
}
