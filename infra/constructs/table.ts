import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { TABLE_SCHEMA } from '../../lib/storage/table-schema';
import type { ProvisionedCapacity } from '../settings';

/** Props of {@link AuthTable}. */
export interface AuthTableProps {
  readonly tableName: string;
  /** Production tables are protected from deletion and kept when the stack goes. */
  readonly isProduction: boolean;
  /**
   * Warm throughput (write units per second) to have before a bulk migration; unset: DynamoDB's
   * default for a new on-demand table (4,000). Reads stay at the on-demand floor (12,000). Each
   * GSI gets `GSI_SHARE` of it (at least the on-demand floor): a GSI has partitions of its
   * own, and one left cold throttles the table's writes through back-pressure.
   */
  readonly warmWriteUnitsPerSecond?: number;
  /** Provisioned capacity (a migration window) instead of on-demand; each GSI gets its `GSI_PROVISIONED_SHARE` of it. */
  readonly provisionedCapacity?: ProvisionedCapacity;
}

/** DynamoDB's warm throughput of a new on-demand table or GSI: the least worth asking for. */
const ON_DEMAND_WARM = { writeUnitsPerSecond: 4_000, readUnitsPerSecond: 12_000 } as const;
/**
 * A GSI's share of the table's warm write throughput (and of a provisioned table's units, for an
 * index `GSI_PROVISIONED_SHARE` does not name). A bulk-imported user writes about 16 units
 * (bench/SCALE.md), of which gsi1 takes 3 (the user list, the row's status index entry put and
 * removed) and gsi2 1–2 (the email, a role's users): at most ~19%, so a quarter leaves headroom.
 */
export const GSI_SHARE = 0.25;

/** The warm throughput of each GSI for a table warmed to `tableWrites` write units per second. */
export function gsiWarmThroughput(tableWrites: number): { writeUnitsPerSecond: number; readUnitsPerSecond: number } {
  return {
    writeUnitsPerSecond: Math.max(ON_DEMAND_WARM.writeUnitsPerSecond, Math.ceil(tableWrites * GSI_SHARE)),
    readUnitsPerSecond: ON_DEMAND_WARM.readUnitsPerSecond,
  };
}

/**
 * Each GSI's share of the table's provisioned units, where capacity is paid by the hour. A typical
 * bulk-imported user (bench/SCALE.md) writes 12 units into the table, 3 into gsi1 (its list entry,
 * its row's status entry put and removed: 25 %) and 1 into gsi2 (its email: 8 %; a role's users
 * adds 1, 14 % then). The import runs at the pace of whichever is short, never failing a row.
 * Reads get the same shares: the table's own reads (guards, partitions, counters) are most of them.
 */
export const GSI_PROVISIONED_SHARE: Readonly<Record<string, number>> = { gsi1: 0.25, gsi2: 0.125 };

/** The provisioned capacity of a GSI for a table provisioned with `table` (at least 1 unit each). */
export function gsiProvisionedCapacity(indexName: string, table: ProvisionedCapacity): ProvisionedCapacity {
  const share = GSI_PROVISIONED_SHARE[indexName] ?? GSI_SHARE;
  return { writeUnits: Math.max(1, Math.ceil(table.writeUnits * share)), readUnits: Math.max(1, Math.ceil(table.readUnits * share)) };
}

const capacityProps = (c: ProvisionedCapacity) => ({ writeCapacity: c.writeUnits, readCapacity: c.readUnits });

/**
 * The service's one DynamoDB table, built from `TABLE_SCHEMA` (the same definition `npm start`
 * and the tests create locally): on-demand (provisioned for a migration window when the stage
 * asks), string keys, both GSIs projecting all attributes, TTL on the expiry attribute,
 * point-in-time recovery always on.
 */
export class AuthTable extends Construct {
  readonly table: dynamodb.Table;
  /** Index names, for index-scoped `dynamodb:Query` grants. */
  readonly indexNames: readonly string[];

  constructor(scope: Construct, id: string, props: AuthTableProps) {
    super(scope, id);
    const s = TABLE_SCHEMA;
    const provisioned = props.provisionedCapacity;
    this.table = new dynamodb.Table(this, 'Table', {
      tableName: props.tableName,
      partitionKey: { name: s.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: s.sortKey, type: dynamodb.AttributeType.STRING },
      ...(provisioned
        ? { billingMode: dynamodb.BillingMode.PROVISIONED, ...capacityProps(provisioned) }
        : { billingMode: dynamodb.BillingMode.PAY_PER_REQUEST }),
      // The stream feeds the bulk-import worker (SPEC §15).
      stream: dynamodb.StreamViewType[s.streamViewType],
      ...(props.warmWriteUnitsPerSecond !== undefined
        ? { warmThroughput: { writeUnitsPerSecond: props.warmWriteUnitsPerSecond, readUnitsPerSecond: ON_DEMAND_WARM.readUnitsPerSecond } }
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
        ...(props.warmWriteUnitsPerSecond !== undefined ? { warmThroughput: gsiWarmThroughput(props.warmWriteUnitsPerSecond) } : {}),
        ...(provisioned ? capacityProps(gsiProvisionedCapacity(gsi.indexName, provisioned)) : {}),
      });
    }
    // CDK leaves BillingMode out for provisioned (CloudFormation's default): written out, the
    // template says which way a deploy switches the table, and a diff shows it.
    if (provisioned) (this.table.node.defaultChild as dynamodb.CfnTable).billingMode = 'PROVISIONED';
    this.indexNames = s.globalSecondaryIndexes.map((g) => g.indexName);
  }
}
