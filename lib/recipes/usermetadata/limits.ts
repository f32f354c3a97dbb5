/**
 * The most a user's metadata may hold, serialised as JSON (UTF-8 bytes): custom claims and
 * profile data fit many times over, and the item stays far below DynamoDB's 400 KB item limit
 * (a larger value would fail there with a 500, and every read of it would carry it).
 */
export const MAX_METADATA_BYTES = 64 * 1024;

/**
 * How deep a free-form JSON value (user metadata) may nest. JSON.parse takes any depth the body
 * holds, but writing the value back out recurses, and a 1 MiB body of brackets would overflow the
 * stack (a 500); real metadata nests a few levels.
 */
export const MAX_JSON_DEPTH = 64;
