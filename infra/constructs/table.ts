import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { TABLE_SCHEMA } from '../../lib/storage/table-schema';

/** Props of {@link AuthTable}. */
export interface AuthTableProps {
  readonly tableName: string;
  /** Production tables are protected from deletion and kept when the stack goes. */
  readonly isProduction: boolean;
  /**
   * Warm throughput (write units per second) to have before a bulk migration; unset: DynamoDB's
   * default for a new on-demand table (4,000). Reads stay at the on-demand floor (12,000).
   */
  readonly warmWriteUnitsPerSecond?: number;
}

/**
 * The service's one DynamoDB table, built from `TABLE_SCHEMA` (the same definition `npm start`
 * and the tests create locally): on-demand, string keys, both GSIs projecting all attributes,
 * TTL on the expiry attribute, point-in-time recovery always on.
 */
export class AuthTable extends Construct {
  readonly table: dynamodb.Table;
  /** Index names, for index-scoped `dynamodb:Query` grants. */
  readonly indexNames: readonly string[];

  constructor(scope: Construct, id: string, props: AuthTableProps) {
    super(scope, id);
    const s = TABLE_SCHEMA;
    this.table = new dynamodb.Table(this, 'Table', {
      tableName: props.tableName,
      partitionKey: { name: s.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: s.sortKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      // The stream feeds the bulk-import worker (SPEC §15).
      stream: dynamodb.StreamViewType[s.streamViewType],
      ...(props.warmWriteUnitsPerSecond !== undefined
        ? { warmThroughput: { writeUnitsPerSecond: props.warmWriteUnitsPerSecond, readUnitsPerSecond: 12_000 } }
        : {}),
      timeToLiveAttribute: s.ttlAttribute,
      // Users and their password hashes cannot be re-imported once the old provider is gone:
      // every stage can roll back 35 days, and production refuses DeleteTable outright.
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: props.isProduction,
      removalPolicy: props.isProduction ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    for (const gsi of s.globalSecondaryIndexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: gsi.indexName,
        partitionKey: { name: gsi.partitionKey, type: dynamodb.AttributeType.STRING },
        sortKey: { name: gsi.sortKey, type: dynamodb.AttributeType.STRING },
        projectionType: dynamodb.ProjectionType.ALL,
      });
    }
    this.indexNames = s.globalSecondaryIndexes.map((g) => g.indexName);
  }
}
