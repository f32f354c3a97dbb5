import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { standaloneUser } from '../auth-user';
import { keys } from '../keys';
import { writeAtomically, type DynamoContext } from './transact';
import { itemsOfUser, loginMethodFromItem } from './user-items';

/** The item type of a user in storage format 1 (before account linking). */
const FORMAT_1_USER = 'user';

/**
 * Upgrades a table to storage format 2 (account linking). Format 1 kept each user's one login
 * method at `USER#<id>` / `USER`; format 2 keeps a user's login methods in its partition under
 * `LM#<recipeUserId>`. Guards are the same in both (a login method on its own names no other
 * user), so each format-1 item is rewritten on its own: one transaction deletes it at the version
 * read and puts its login method item if absent. Idempotent and safe while the service runs (a
 * user changed meanwhile is skipped by the condition and picked up by the next run). Returns how
 * many users it rewrote.
 */
export async function upgradeStorage(ctx: DynamoContext): Promise<number> {
  let upgraded = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const out = await ctx.doc.send(
      new ScanCommand({
        TableName: ctx.tableName,
        FilterExpression: '#type = :user AND sk = :sk',
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: { ':user': FORMAT_1_USER, ':sk': 'USER' },
        ExclusiveStartKey: startKey,
      }),
    );
    for (const old of out.Items ?? []) {
      const lm = loginMethodFromItem(old);
      const [derived] = itemsOfUser(standaloneUser(lm)).filter((d) => d.role === 'loginMethod');
      const result = await writeAtomically(ctx, [
        {
          item: {
            Delete: {
              TableName: ctx.tableName,
              Key: { pk: keys.userPartition(lm.userId), sk: 'USER' },
              ConditionExpression: '#version = :version',
              ExpressionAttributeNames: { '#version': 'version' },
              ExpressionAttributeValues: { ':version': lm.version },
            },
          },
          onConditionFailed: 'CHANGED',
        },
        { item: { Put: { TableName: ctx.tableName, Item: derived.item, ConditionExpression: 'attribute_not_exists(pk)' } }, onConditionFailed: 'CHANGED' },
      ]);
      if (result.ok) upgraded++;
    }
    startKey = out.LastEvaluatedKey;
  } while (startKey);
  return upgraded;
}
