import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { filesOverLines, importCircles, importGraph, relativeTo, tsFilesUnder } from '../support/import-graph';

/**
 * The shape of the code (issue 43): no file imports itself back through others, and no file of
 * `lib/` grows past what one reader holds at once.
 */

const ROOT = resolve(__dirname, '../..');
/** The code the service ships and runs (the tests and the bench import it, nothing imports them). */
const SOURCE_FOLDERS = ['lib', 'functions', 'infra', 'local', 'scripts'];
/** A file past this is two ideas (issue 43); `lib/storage/ports.ts` at 588 lines was fourteen. */
const MAX_LIB_FILE_LINES = 450;

/** Writes `files` (path → text) into a fresh folder and returns it. */
function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'import-graph-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

function circlesIn(dir: string): string[][] {
  return importCircles(importGraph(tsFilesUnder(dir, ['.']))).map((circle) => relativeTo(dir, circle));
}

describe('the import graph', () => {
  it('has no circle in lib/, functions/, infra/, local/ or scripts/', () => {
    const circles = importCircles(importGraph(tsFilesUnder(ROOT, SOURCE_FOLDERS)));
    expect(circles.map((circle) => relativeTo(ROOT, circle).join(' → '))).toEqual([]);
  });

  it('reads every source file, so an empty graph cannot pass for a clean one', () => {
    const graph = importGraph(tsFilesUnder(ROOT, SOURCE_FOLDERS));
    expect(graph.size).toBeGreaterThan(300);
    expect(graph.get(join(ROOT, 'lib/recipes/emailpassword/sign-in.ts'))).toContain(join(ROOT, 'lib/password-migration/migrate-at-sign-in.ts'));
  });

  it("keeps the rows' and the worker's stores out of POST /bulk-import/import (it imports no row)", () => {
    const graph = importGraph(tsFilesUnder(ROOT, SOURCE_FOLDERS));
    const reached = (entry: string) => {
      const seen = new Set([join(ROOT, entry)]);
      for (const file of seen) for (const next of graph.get(file) ?? []) seen.add(next);
      return new Set(relativeTo(ROOT, [...seen]));
    };
    const stores = ['lib/storage/dynamo/dynamo-bulk-import-store.ts', 'lib/storage/dynamo/dynamo-bulk-worker-store.ts'];
    const sync = reached('functions/bulkimport/import-user.ts');
    expect(sync.has('lib/storage/dynamo/dynamo-bulk-user-import-store.ts')).toBe(true);
    expect(stores.filter((s) => sync.has(s))).toEqual([]);
    const worker = reached('functions/bulkimport/worker.ts');
    expect(stores.filter((s) => worker.has(s))).toEqual(stores);
  });

  describe('finds a circle', () => {
    let dir: string | undefined;
    afterEach(() => dir && rmSync(dir, { recursive: true, force: true }));

    it('of two files, through a type-only import', () => {
      dir = project({
        'config/issuers.ts': "import { keysOf } from '../keys/issuer-keys';\nexport interface Issuer { id: string }\n",
        'keys/issuer-keys.ts': "import type { Issuer } from '../config/issuers';\nexport const keysOf = (i: Issuer) => [i.id];\n",
        'other.ts': "import { keysOf } from './keys/issuer-keys';\n",
      });
      expect(circlesIn(dir)).toEqual([['config/issuers.ts', 'keys/issuer-keys.ts', 'config/issuers.ts']]);
    });

    it('through three files, an index file, an export-from and a require', () => {
      dir = project({
        'a.ts': "export { b } from './b';\n",
        'b.ts': "import { c } from './c';\nexport const b = c;\n",
        'c/index.ts': "const a = require('../a');\nexport const c = a;\n",
      });
      expect(circlesIn(dir)).toEqual([['a.ts', 'b.ts', 'c/index.ts', 'a.ts']]);
    });

    it('of a file importing itself, and each circle once', () => {
      dir = project({
        'self.ts': "import './self';\n",
        'p.ts': "import './q';\n",
        'q.ts': "import './p';\nimport 'some-package';\n",
      });
      expect(circlesIn(dir)).toEqual([
        ['p.ts', 'q.ts', 'p.ts'],
        ['self.ts', 'self.ts'],
      ]);
    });

    it('and none where imports only point one way', () => {
      dir = project({
        'a.ts': "import './b';\nimport './c';\n",
        'b.ts': "import './c';\n",
        'c.ts': "import 'node:fs';\n",
      });
      expect(circlesIn(dir)).toEqual([]);
    });
  });
});

describe('file length', () => {
  it(`keeps every TypeScript file of lib/ at or under ${MAX_LIB_FILE_LINES} lines`, () => {
    const over = filesOverLines(tsFilesUnder(ROOT, ['lib']), MAX_LIB_FILE_LINES);
    expect(over.map(({ file, lines }) => `${relativeTo(ROOT, [file])[0]}: ${lines} lines`)).toEqual([]);
  });

  it('counts lines as wc -l does, and names a file one line over', () => {
    const dir = project({ 'long.ts': 'x;\n'.repeat(MAX_LIB_FILE_LINES + 1), 'fits.ts': 'x;\n'.repeat(MAX_LIB_FILE_LINES) });
    try {
      expect(filesOverLines(tsFilesUnder(dir, ['.']), MAX_LIB_FILE_LINES).map(({ file, lines }) => [relativeTo(dir, [file])[0], lines])).toEqual([
        ['long.ts', MAX_LIB_FILE_LINES + 1],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
