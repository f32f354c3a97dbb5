import { requestIds } from '../../lib/recipes/bulkimport/stage-users';
import { bulkLaneOf } from '../../lib/storage/keys';

/** The ids of a staging request with an idempotency key (`requestIds`). */
describe('requestIds', () => {
  const users = [
    { loginMethods: [{ recipeId: 'passwordless', email: 'a@example.com' }] },
    { loginMethods: [{ recipeId: 'passwordless', email: 'b@example.com' }] },
  ];
  const take = (next: () => string, n: number) => Array.from({ length: n }, next);

  it('gives every try of the same request the same ids, in the same order', () => {
    expect(take(requestIds('k1', users), 5)).toEqual(take(requestIds('k1', JSON.parse(JSON.stringify(users))), 5));
  });

  it('gives another key, or other users under the same key, other ids', () => {
    const ids = new Set(take(requestIds('k1', users), 5));
    expect(take(requestIds('k2', users), 5).some((id) => ids.has(id))).toBe(false);
    expect(take(requestIds('k1', [users[0]]), 5).some((id) => ids.has(id))).toBe(false);
    expect(take(requestIds('k1', [users[1], users[0]]), 5).some((id) => ids.has(id))).toBe(false);
  });

  it('makes name-based UUIDs (version 5) that are row ids, spread over the lanes', () => {
    const ids = take(requestIds('spread', users), 4096);
    expect(new Set(ids).size).toBe(4096);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const lanes = new Map<number, number>();
    for (const id of ids) lanes.set(bulkLaneOf(id) as number, (lanes.get(bulkLaneOf(id) as number) ?? 0) + 1);
    // 4,096 ids over 256 lanes: 16 each on average; a fair hash puts every lane well above 0 and below 48.
    expect(lanes.size).toBe(256);
    expect(Math.max(...lanes.values())).toBeLessThan(48);
  });

  it("is RFC 9562 version 5 of its namespace and name: the ids Python's uuid.uuid5 gives", () => {
    // Made with Python 3.11 (an independent implementation):
    //   d = hashlib.sha256(b"k1\n" + json.dumps(users, separators=(",", ":")).encode()).hexdigest()
    //   [str(uuid.uuid5(uuid.UUID("3b0f5e4e-9d6a-4c1f-8e2b-7a9d0c4f6e18"), d + "#%d" % i)) for i in range(3)]
    expect(take(requestIds('k1', users), 3)).toEqual([
      '113ddfe9-0db3-56a9-976b-db5f4cec3d43',
      '9a267cca-ed21-5532-b36b-999246074624',
      'd6a16817-d6d1-5c28-919c-f008760dd63d',
    ]);
  });
});
