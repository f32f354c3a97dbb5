import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** Folders that hold no Markdown of ours: installed packages, build output, local data, git. */
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'cdk.out', 'coverage']);

/** Every Markdown file under `dir`, skipping installed and generated folders and dot-folders. */
function markdownFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name) && !entry.name.startsWith('.')) found.push(...markdownFiles(join(dir, entry.name)));
    } else if (entry.name.toLowerCase().endsWith('.md')) {
      found.push(join(dir, entry.name));
    }
  }
  return found.sort();
}

/** The text with fenced code blocks blanked (line count kept) and inline code spans reduced to a word. */
function withoutCode(text: string): string {
  let fence: string | undefined;
  const lines = text.split('\n').map((line) => {
    const opener = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence === undefined && opener) {
      fence = opener[1];
      return '';
    }
    if (fence !== undefined) {
      if (line.trim().startsWith(fence[0].repeat(fence.length)) && line.trim().replace(/[`~]/g, '') === '') fence = undefined;
      return '';
    }
    return line;
  });
  return lines.join('\n').replace(/(`+)[^`]*?\1/g, (span) => (span.includes('\n') ? '\n' : 'code'));
}

/** GitHub's heading anchor: the rendered text lower-cased, punctuation removed, each space a hyphen. */
function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link or image: its text
    .replace(/`/g, '')
    .replace(/<[^>]+>/g, '');
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a Markdown text: its ATX headings (numbered -1, -2… when repeated) and HTML ids. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const line of withoutCode(text).split('\n')) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (heading) {
      const base = slug(heading[1]);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      result.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const html of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) result.add(html[1]);
  }
  return result;
}

/** The link targets of a Markdown text, with the line each starts on: inline links and images, and definitions. */
function linkTargets(text: string): { target: string; line: number }[] {
  const clean = withoutCode(text);
  const lineOf = (index: number) => clean.slice(0, index).split('\n').length;
  const targets: { target: string; line: number }[] = [];
  for (const m of clean.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g)) {
    targets.push({ target: m[1], line: lineOf(m.index ?? 0) });
  }
  for (const m of clean.matchAll(/^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s|$)/gm)) targets.push({ target: m[1], line: lineOf(m.index ?? 0) });
  return targets;
}

/**
 * Every relative link of every Markdown file under `root` that does not resolve: to no file, or to a
 * `#anchor` that is no heading of the Markdown file it names. Each as `file:line: target (why)`.
 */
function danglingLinks(root: string): string[] {
  const problems: string[] = [];
  const anchorsOf = new Map<string, Set<string>>();
  const anchorsOfFile = (file: string) => {
    let set = anchorsOf.get(file);
    if (!set) {
      set = anchors(readFileSync(file, 'utf8'));
      anchorsOf.set(file, set);
    }
    return set;
  };
  for (const file of markdownFiles(root)) {
    for (const { target, line } of linkTargets(readFileSync(file, 'utf8'))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, …: not a file of the repository
      const where = `${relative(root, file)}:${line}: ${target}`;
      const hash = target.indexOf('#');
      const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash)).replace(/\?.*$/, '');
      const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
      const resolved = pathPart === '' ? file : pathPart.startsWith('/') ? join(root, pathPart) : resolve(dirname(file), pathPart);
      if (!existsSync(resolved)) {
        problems.push(`${where} (no such file)`);
        continue;
      }
      if (anchor === undefined || anchor === '') continue;
      if (statSync(resolved).isDirectory() || !resolved.toLowerCase().endsWith('.md')) {
        problems.push(`${where} (an anchor into a file that is not Markdown)`);
      } else if (!anchorsOfFile(resolved).has(anchor)) {
        problems.push(`${where} (no heading with that anchor)`);
      }
    }
  }
  return problems;
}

describe('links between the Markdown files', () => {
  it('every relative link of every Markdown file of the repository resolves to a file and a heading', () => {
    expect(markdownFiles(ROOT).length).toBeGreaterThanOrEqual(10);
    expect(danglingLinks(ROOT)).toEqual([]);
  });

  it("makes GitHub's anchors from headings", () => {
    expect(slug('Bulk import: the worker, the sweeper, and the throughput to ask for')).toBe(
      'bulk-import-the-worker-the-sweeper-and-the-throughput-to-ask-for',
    );
    expect(slug('Differences from `npm start`')).toBe('differences-from-npm-start');
    expect(slug('A whole app: `examples/sdk-app/`')).toBe('a-whole-app-examplessdk-app');
    expect(slug('Users whose hash cannot be exported (SPEC §16)')).toBe('users-whose-hash-cannot-be-exported-spec-16');
    expect(slug('Bundle analysis (issue #15)')).toBe('bundle-analysis-issue-15');
    expect(slug('snake_case and [a link](x.md)')).toBe('snake_case-and-a-link');
    expect([...anchors('# Notes\n\n## Notes\n\n```sh\n# not a heading\n```\n')]).toEqual(['notes', 'notes-1']);
  });

  it('reports a link to a missing file, to a missing heading, and a missing in-file anchor; not a link in code', () => {
    const root = mkdtempSync(join(tmpdir(), 'doc-links-'));
    try {
      mkdirSync(join(root, 'docs'));
      writeFileSync(join(root, 'docs', 'GUIDE.md'), '# Guide\n\n## Step one\n');
      writeFileSync(
        join(root, 'README.md'),
        [
          '# Read me',
          '[fine](docs/GUIDE.md#step-one) and [fine too](#read-me) and [web](https://example.com/x.md)',
          '[gone](docs/GONE.md)',
          '[no heading](docs/GUIDE.md#step-two), [split',
          'over lines](#nowhere)',
          '`[in code](docs/ALSO-GONE.md)`',
          '```md',
          '[in a block](docs/ALSO-GONE.md)',
          '```',
        ].join('\n'),
      );
      expect(danglingLinks(root)).toEqual([
        'README.md:3: docs/GONE.md (no such file)',
        'README.md:4: docs/GUIDE.md#step-two (no heading with that anchor)',
        'README.md:5: #nowhere (no heading with that anchor)',
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
