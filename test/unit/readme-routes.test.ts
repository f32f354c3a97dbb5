import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROUTES } from '../../infra/routes';

/** The README's route table is the route table (`infra/routes.ts`), row for row. */
describe('README routes', () => {
  it('lists every route of the route table, and no other', () => {
    const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('### Routes'), readme.indexOf('\n## ', readme.indexOf('### Routes')));
    const rows = [...section.matchAll(/^\| (GET|POST|PUT) \| `([^`]+)` \|/gm)].map((m) => `${m[1]} ${m[2]}`);
    expect(rows.sort()).toEqual(ROUTES.map((r) => `${r.method} ${r.path}`).sort());
  });
});
