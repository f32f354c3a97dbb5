import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROUTES } from '../../infra/routes';

/** The route table of `docs/API.md` is the route table (`infra/routes.ts`), row for row. */
describe('docs/API.md routes', () => {
  it('lists every route of the route table, and no other', () => {
    const doc = readFileSync(join(__dirname, '..', '..', 'docs', 'API.md'), 'utf8');
    const start = doc.indexOf('\n## Routes\n');
    expect(start).toBeGreaterThan(-1);
    const end = doc.indexOf('\n## ', start + 1);
    const section = doc.slice(start, end === -1 ? undefined : end);
    const rows = [...section.matchAll(/^\| (GET|POST|PUT|DELETE|PATCH) \| `([^`]+)` \|/gm)].map((m) => `${m[1]} ${m[2]}`);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.sort()).toEqual(ROUTES.map((r) => `${r.method} ${r.path}`).sort());
  });
});
