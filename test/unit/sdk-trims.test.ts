import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { partitionsWithoutDescriptions } from '../../infra/bundling';

/**
 * What the bundles keep of the AWS SDK's partitions table (`infra/bundling.ts`): the endpoint rules
 * read a region's partition outputs merged with the region's own entry, so dropping the regions'
 * descriptions must leave every other byte of meaning, and a region whose entry held anything else
 * would show here.
 */
const FILE = join(__dirname, '../../node_modules/@aws-sdk/core/dist-es/submodules/client/util-endpoints/lib/aws/partitions.js');

type Info = { partitions: { id: string; outputs: object; regionRegex: string; regions: Record<string, Record<string, unknown>> }[]; version: string };
const parse = (text: string): Info =>
  JSON.parse(
    text
      .slice(text.indexOf('=') + 1)
      .trim()
      .replace(/;\s*$/, ''),
  );

describe("the SDK's partitions table in the bundles", () => {
  const original = readFileSync(FILE, 'utf8');
  const kept = parse(partitionsWithoutDescriptions(original));
  const full = parse(original);

  it('keeps every partition, its outputs and region pattern, and every region', () => {
    expect(kept.version).toBe(full.version);
    expect(kept.partitions.map((p) => [p.id, p.outputs, p.regionRegex, Object.keys(p.regions)])).toEqual(
      full.partitions.map((p) => [p.id, p.outputs, p.regionRegex, Object.keys(p.regions)]),
    );
    expect(full.partitions.flatMap((p) => Object.keys(p.regions))).toContain('eu-west-1');
  });

  it('drops only the descriptions: no region entry held anything else', () => {
    for (const p of full.partitions) for (const [name, entry] of Object.entries(p.regions)) expect([name, Object.keys(entry)]).toEqual([name, ['description']]);
    for (const p of kept.partitions) for (const entry of Object.values(p.regions)) expect(entry).toEqual({});
    expect(partitionsWithoutDescriptions(original).length).toBeLessThan(original.length / 2);
  });
});
