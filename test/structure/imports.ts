// The imports of app/, read as text (every `import … from`, `export … from`, `import "…"` and `import("…")`),
// resolved to files; what the structure tests check. A part of app/ is a top-level folder or a file at its root.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

export const APP = path.resolve("app");

const SPECIFIER =
  /\b(?:import|export)\s[^'"`;]*?\bfrom\s*["']([^"']+)["']|\bimport\s*\(\s*["']([^"']+)["']\s*\)|\bimport\s+["']([^"']+)["']/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

function resolveFile(base: string): string | null {
  const candidates = [base, `${base}.ts`, `${base}.tsx`, path.join(base, "index.ts"), path.join(base, "index.tsx")];
  return candidates.find((c) => existsSync(c) && statSync(c).isFile()) ?? null;
}

export interface ImportGraph {
  /** app/-relative file → the app/-relative files it imports. */
  files: Map<string, Set<string>>;
  /** Imports that leave app/ (relative to the repository) or resolve to nothing, as "from → specifier". */
  outside: string[];
  unresolved: string[];
}

export function readImports(root = APP): ImportGraph {
  const files = new Map<string, Set<string>>();
  const outside: string[] = [];
  const unresolved: string[] = [];
  for (const file of sourceFiles(root)) {
    const from = path.relative(root, file);
    const targets = new Set<string>();
    // Comment lines (`//`, and `/*`, `*` of block comments) may quote an import; they are not one.
    const code = readFileSync(file, "utf8").replace(/^\s*(\/\/|\/\*|\*).*$/gm, "");
    for (const match of code.matchAll(SPECIFIER)) {
      const specifier = match[1] ?? match[2] ?? match[3];
      const base = specifier.startsWith("~/")
        ? path.join(root, specifier.slice(2))
        : specifier.startsWith(".")
          ? path.resolve(path.dirname(file), specifier)
          : null;
      if (base === null) continue; // a package
      if (!base.startsWith(root + path.sep)) {
        outside.push(`${from} → ${specifier}`);
        continue;
      }
      const target = resolveFile(base);
      if (target) targets.add(path.relative(root, target));
      else unresolved.push(`${from} → ${specifier}`);
    }
    files.set(from, targets);
  }
  return { files, outside, unresolved };
}

/** The part of app/ a file belongs to: its top-level folder, or (at the root) its name without the extension. */
export const partOf = (file: string) =>
  file.includes(path.sep) ? file.split(path.sep)[0] : file === "routes.ts" ? "routes.ts" : file.replace(/\.tsx?$/, "");

/** Part → the other parts it imports, with one file-level example of each. */
export function partGraph(files: Map<string, Set<string>>): Map<string, Map<string, string>> {
  const parts = new Map<string, Map<string, string>>();
  for (const [from, targets] of files) {
    const edges = parts.get(partOf(from)) ?? new Map<string, string>();
    parts.set(partOf(from), edges);
    for (const to of targets)
      if (partOf(to) !== partOf(from) && !edges.has(partOf(to))) edges.set(partOf(to), `${from} → ${to}`);
  }
  return parts;
}

/** The cycles of a directed graph: its strongly connected components with more than one node, or a self-edge. */
export function cycles(nodes: Iterable<string>, next: (node: string) => Iterable<string>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const other of next(node)) {
      if (!index.has(other)) {
        visit(other);
        low.set(node, Math.min(low.get(node)!, low.get(other)!));
      } else if (onStack.has(other)) low.set(node, Math.min(low.get(node)!, index.get(other)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || [...next(node)].includes(node)) found.push(component.sort());
  };
  for (const node of nodes) if (!index.has(node)) visit(node);
  return found;
}

/** One path around a cycle, for the failure message: a → b → … → a. */
export function describeCycle(component: string[], next: (node: string) => Iterable<string>): string {
  const members = new Set(component);
  const start = component[0];
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const other of next(node)) {
      if (!members.has(other)) continue;
      if (other === start) {
        const route = [start];
        for (let at: string | undefined = node; at && at !== start; at = previous.get(at)) route.splice(1, 0, at);
        return [...route, start].join(" → ");
      }
      if (!previous.has(other)) {
        previous.set(other, node);
        queue.push(other);
      }
    }
  }
  return component.join(", ");
}
