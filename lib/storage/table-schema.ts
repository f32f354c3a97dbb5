import { ATTR, INDEX } from './keys';

/**
 * The table's definition, in one place: the CDK stack (`infra/`), `npm start` and the tests all
 * create the table from it, so they cannot disagree on keys or indexes.
 */
export const TABLE_SCHEMA = {
  partitionKey: ATTR.pk,
  sortKey: ATTR.sk,
  ttlAttribute: ATTR.ttl,
  /** The stream feeds the bulk-import worker, which filters on the new image of rows. */
  streamViewType: 'NEW_IMAGE',
  globalSecondaryIndexes: [
    { indexName: INDEX.usersByTenant, partitionKey: ATTR.gsi1pk, sortKey: ATTR.gsi1sk },
    { indexName: INDEX.byIdentity, partitionKey: ATTR.gsi2pk, sortKey: ATTR.gsi2sk },
  ],
} as const;
