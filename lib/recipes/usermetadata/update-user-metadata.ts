import type { JsonObject } from '../../storage/model';
import { retryOnRace, type Deps } from '../deps';
import { InvalidInputError } from '../errors';
import { MAX_METADATA_BYTES } from './limits';

/**
 * `PUT /recipe/user/metadata`: a shallow merge (each top-level key of the update replaces the old
 * value, nested objects are not merged; `null` deletes the key), answering the whole metadata
 * after it. Read and written back conditional on the version read, so concurrent updates of
 * different keys both survive. Refused (400) when the result would exceed `MAX_METADATA_BYTES`.
 */
export function updateUserMetadata(deps: Pick<Deps, 'metadata'>, userId: string, update: JsonObject): Promise<{ status: 'OK'; metadata: JsonObject }> {
  return retryOnRace('Updating the metadata', async () => {
    const stored = await deps.metadata.getMetadata(userId);
    const metadata: JsonObject = { ...(stored?.metadata ?? {}) };
    for (const [key, value] of Object.entries(update)) {
      if (value === null) delete metadata[key];
      else metadata[key] = value;
    }
    const bytes = Buffer.byteLength(JSON.stringify(metadata), 'utf8');
    if (bytes > MAX_METADATA_BYTES) {
      throw new InvalidInputError(`Field name 'metadataUpdate' would make the metadata ${bytes} bytes of JSON: the maximum is ${MAX_METADATA_BYTES}`);
    }
    const written = await deps.metadata.putMetadata(userId, metadata, stored?.version);
    return written === 'OK' ? { status: 'OK' as const, metadata } : undefined;
  });
}
