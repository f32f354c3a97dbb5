import { passesWorkerFilter } from '../../../infra/worker-stream';
import { bulkLaneOf } from '../keys';
import type { BulkImportRow } from '../model';
import type { BulkRowHandOver } from '../ports/bulk-worker';
import { BULK_ROW_TYPE, bulkRowFromItem } from './dynamo-bulk-import-store';

/** An attribute of a stream record's image, in DynamoDB's JSON: strings and numbers are all a row holds. */
type ImageValue = { readonly S?: string; readonly N?: string };

/**
 * A record of the table's stream as Lambda hands it to the worker (the parts read here): its
 * change, the changed item's key and new image (the table's stream view is `NEW_IMAGE`), and its
 * sequence number.
 */
export interface BulkRowStreamRecord {
  readonly eventName?: string;
  readonly dynamodb?: {
    readonly Keys?: Readonly<Record<string, ImageValue>>;
    readonly NewImage?: Readonly<Record<string, ImageValue>>;
    readonly SequenceNumber?: string;
  };
}

/**
 * A row as a stream record's new image shows it, or `undefined` when the image is not a whole
 * row. Numbers come as decimal text and are read back as numbers, as the document client does.
 */
export function bulkRowFromImage(image: Readonly<Record<string, ImageValue>>): BulkImportRow | undefined {
  if (image.type?.S !== BULK_ROW_TYPE || image.user?.S === undefined || image.status?.S === undefined) return undefined;
  const item: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(image)) item[name] = value.S ?? (value.N !== undefined ? Number(value.N) : undefined);
  try {
    return bulkRowFromItem(item);
  } catch {
    return undefined;
  }
}

/**
 * The rows a batch of the table's stream records hands to the worker, in stream order: each with
 * its lane, the record's sequence number (what a batch item failure names), and the row as the
 * record shows it when its image is a whole row. Records of anything else are left out.
 */
export function bulkRowHandOversOf(records: readonly BulkRowStreamRecord[]): BulkRowHandOver[] {
  const handOvers: BulkRowHandOver[] = [];
  for (const record of records) {
    // The event source mapping passes only these records (in AWS, and the local poller applies the
    // same patterns); the worker checks again: a row's other changes are its own writes, and taking
    // them would import a failing row again after each attempt.
    if (!passesWorkerFilter(record)) continue;
    const sk = record.dynamodb?.Keys?.sk?.S;
    const id = sk?.startsWith('ROW#') ? sk.slice('ROW#'.length) : undefined;
    // Every row's id carries its lane (`rowKey`): a key without one is no row's.
    const lane = id === undefined ? undefined : bulkLaneOf(id);
    if (id === undefined || lane === undefined) continue;
    const image = record.dynamodb?.NewImage;
    const seen = image ? bulkRowFromImage(image) : undefined;
    handOvers.push({ id, lane, recordId: record.dynamodb?.SequenceNumber ?? '', ...(seen ? { seen } : {}) });
  }
  return handOvers;
}
