import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/**
 * The import graph of the project's own TypeScript, read with TypeScript's own scanner
 * (`ts.preProcessFile`: every `import`, `import type`, `export … from`, `import()` and `require()`),
 * no type checking, so the whole of `lib/` reads in well under a second. Only relative specifiers
 * are edges (packages cannot import us back); they resolve as `tsc` resolves them here: `x.ts`,
 * then `x/index.ts`. Type-only imports count: a circle of types still ties two files to each
 * other, and turns into a circle of code the day one of them needs a value.
 */

/** Every `.ts` file under the folders (relative to `root`), skipping `node_modules`. */
export function tsFilesUnder(root: string, folders: readonly string[]): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') walk(path);
      } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) files.push(path);
    }
  };
  for (const folder of folders) walk(resolve(root, folder));
  return files.sort();
}

/** File → the files among `files` it imports (absolute paths). */
export function importGraph(files: readonly string[]): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = new Set<string>();
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const base = resolve(dirname(file), fileName);
      const target = [`${base}.ts`, join(base, 'index.ts'), base].find((candidate) => known.has(candidate));
      if (target !== undefined) targets.add(target);
    }
    graph.set(file, [...targets].sort());
  }
  return graph;
}

/**
 * The circles of a graph: one per strongly connected component of two or more files (or a file
 * importing itself), each as a path that starts and ends at its first file, `a → b → a`.
 */
export function importCircles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's algorithm, iterative so a deep graph cannot overflow the stack.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; next: number }[] = [{ node: start, next: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const edges = graph.get(frame.node) ?? [];
      if (frame.next < edges.length) {
        const to = edges[frame.next++];
        if (!index.has(to)) {
          index.set(to, counter);
          low.set(to, counter++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, next: 0 });
        } else if (onStack.has(to)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1].node;
        low.set(parent, Math.min(low.get(parent)!, low.get(frame.node)!));
      }
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        if (component.length > 1 || edges.includes(frame.node)) components.push(component.sort());
      }
    }
  }
  return components.map((component) => circleThrough(graph, component));
}

/** One circle inside a strongly connected component: the shortest way from its first file back to it. */
function circleThrough(graph: ReadonlyMap<string, readonly string[]>, component: readonly string[]): string[] {
  const inside = new Set(component);
  const first = component[0];
  const cameFrom = new Map<string, string>();
  const queue = [first];
  search: while (queue.length > 0) {
    const node = queue.shift()!;
    for (const to of graph.get(node) ?? []) {
      if (!inside.has(to) || cameFrom.has(to)) continue;
      cameFrom.set(to, node);
      if (to === first) break search;
      queue.push(to);
    }
  }
  const path = [first];
  for (let node = cameFrom.get(first)!; node !== first; node = cameFrom.get(node)!) path.unshift(node);
  return [first, ...path];
}

/** The files over `maxLines` lines (`wc -l`'s count), with their counts. */
export function filesOverLines(files: readonly string[], maxLines: number): { file: string; lines: number }[] {
  return files
    .filter((file) => statSync(file).size > maxLines) // a file of fewer bytes cannot have that many lines
    .map((file) => ({ file, lines: readFileSync(file, 'utf8').split('\n').length - 1 }))
    .filter(({ lines }) => lines > maxLines);
}

/** Paths relative to `root`, for a readable failure. */
export const relativeTo = (root: string, paths: readonly string[]): string[] => paths.map((p) => relative(root, p));
