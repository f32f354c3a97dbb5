/**
 * The most a user's metadata may hold, serialised as JSON (UTF-8 bytes): custom claims and
 * profile data fit many times over, and the item stays far below DynamoDB's 400 KB item limit
 * (a larger value would fail there with a 500, and every read of it would carry it).
 */
export const MAX_METADATA_BYTES = 64 * 1024;
