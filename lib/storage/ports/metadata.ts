import type { JsonObject, MetadataRecord } from '../model';

/** User metadata, one item per user id (the id exactly as the app gives it). */
export interface MetadataStore {
  /** The metadata of a user id (read consistently), or `undefined` when it has none. */
  getMetadata(userId: string): Promise<MetadataRecord | undefined>;
  /**
   * Stores a user id's metadata if it is still at the version read (`undefined`: only if it has
   * none yet); `STALE` otherwise, so a concurrent update is never lost.
   */
  putMetadata(userId: string, metadata: JsonObject, readVersion: number | undefined): Promise<'OK' | 'STALE'>;
  removeMetadata(userId: string): Promise<void>;
}
