// Every repository path that a document, a code comment or a toml names must exist, so the prose stays true when a
// file is renamed, moved or removed. What counts as a path reference (precise, so that nothing else is caught):
//  1. A token that starts with a top-level folder of the repository and a slash (`app/sync/queue.server.ts`,
//     `docs/decisions/`) or is the name of a file at the root (`shopify.app.toml`), and ends in a file extension or
//     a slash. Not a reference: a token preceded by a word character, `.`, `/`, `~`, `@`, `:` or `-` (part of a URL,
//     an import alias, a package name, a longer path), or followed by `*`, `<`, `{` or `[` (a glob or a
//     placeholder). Trailing punctuation is not part of it.
//  2. A relative path (`../../docs/service.md` here) ending in a file extension, resolved from the folder of the
//     file that names it.
//  3. A Markdown link's target that is not a URL, a mail address or an anchor, resolved from the document's folder.
//  4. In a README below the root, a backticked file name without a folder ending in `.ts` or `.tsx`: a module of
//     that area, resolved from the README's folder.
//  5. A decision record cited by its number (`docs/decisions/0004`): exactly one record has that number.
// A reference must name a path inside the repository that exists. A path git ignores (`bench/profiles/`, output a
// script writes) is not a repository path and is not checked.
// Where references are looked for: every Markdown file and toml, whole; in source files (app/, server/, scripts/,
// dev/, emulator/, extensions/, test/, prisma/schema.prisma, the root's config files, shell scripts), their comments.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(__dirname, "../..");

export interface Reference {
  file: string;
  line: number;
  /** As written. */
  reference: string;
  /** The repository path it names. */
  resolved: string;
}

/** The files to look in: tracked and new ones git does not ignore. */
function repositoryFiles(): string[] {
  const out = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z"], {
    cwd: ROOT,
    encoding: "utf8",
  });
  return [...new Set(out.split("\0").filter(Boolean))].filter((file) => existsSync(path.join(ROOT, file))).sort();
}

const SOURCE = /\.(ts|tsx|js|mjs|cjs)$/;
const CODE_FOLDERS = ["app", "server", "scripts", "dev", "emulator", "extensions", "test"];

/** What part of a file is read for references: the whole text, its comments, or nothing. */
function kindOf(file: string): "whole" | "comments" | null {
  if (file.endsWith(".md") || file.endsWith(".toml")) return "whole";
  const top = file.includes("/") ? file.slice(0, file.indexOf("/")) : "";
  if (file === "prisma/schema.prisma" || file === ".ci/run" || file.endsWith(".sh")) return "comments";
  if (!file.includes("/") && SOURCE.test(file)) return "comments"; // the root's config files
  if (CODE_FOLDERS.includes(top) && (SOURCE.test(file) || /\.(liquid|css)$/.test(file))) return "comments";
  return null;
}

/** The comments of a source file, as [offset, text] pairs (TypeScript's own parser finds them). */
function sourceComments(file: string, text: string): [number, string][] {
  const kind = file.endsWith(".tsx")
    ? ts.ScriptKind.TSX
    : /\.[mc]?js$/.test(file)
      ? ts.ScriptKind.JS
      : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const found = new Map<number, string>();
  const take = (ranges: ts.CommentRange[] | undefined) => {
    for (const range of ranges ?? []) found.set(range.pos, text.slice(range.pos, range.end));
  };
  const visit = (node: ts.Node) => {
    const children = node.getChildren(source);
    if (children.length === 0) {
      // A leaf token: the comments before it (JSX text is text, not trivia).
      if (node.kind !== ts.SyntaxKind.JsxText) take(ts.getLeadingCommentRanges(text, node.pos));
      return;
    }
    children.forEach(visit);
  };
  visit(source);
  take(ts.getLeadingCommentRanges(text, 0));
  return [...found.entries()];
}

/** The comments of a file that is not TypeScript or JavaScript. */
function otherComments(file: string, text: string): [number, string][] {
  const patterns: RegExp[] = file.endsWith(".liquid")
    ? [/\{%-?\s*comment\s*-?%\}[\s\S]*?\{%-?\s*endcomment\s*-?%\}/g, /<!--[\s\S]*?-->/g, /\{%-?\s*#[\s\S]*?%\}/g]
    : file.endsWith(".css")
      ? [/\/\*[\s\S]*?\*\//g]
      : file.endsWith(".prisma")
        ? [/\/\/.*$/gm]
        : [/(?:^|\s)#.*$/gm]; // shell
  return patterns.flatMap((pattern) => [...text.matchAll(pattern)].map((m): [number, string] => [m.index, m[0]]));
}

/** The parts of a file in which references are looked for, as [offset, text] pairs. */
function searchedParts(file: string, text: string): [number, string][] {
  const kind = kindOf(file);
  if (kind === "whole") return [[0, text]];
  if (kind === "comments") return SOURCE.test(file) ? sourceComments(file, text) : otherComments(file, text);
  return [];
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const PATH_CHARS = "[\\w.$/-]";
const NAMES_A_FILE_OR_FOLDER = /(\/|\.[A-Za-z0-9]+)$/;

/** Every reference in one part of a file, by the rules at the top of this file. */
function referencesIn(
  file: string,
  part: string,
  files: string[],
  topFolders: string[],
  rootFiles: string[],
): { offset: number; reference: string; resolved: string }[] {
  const found: { offset: number; reference: string; resolved: string }[] = [];
  const dir = path.posix.dirname(file);
  const add = (offset: number, raw: string, resolved: string) => {
    const reference = raw.replace(/[.,:;]+$/, "");
    if (!NAMES_A_FILE_OR_FOLDER.test(reference)) return;
    found.push({ offset, reference, resolved: resolved.slice(0, resolved.length - (raw.length - reference.length)) });
  };
  // 1. From a top-level folder, or a root file's name.
  const rooted = new RegExp(
    `(?<![\\w./~@:-])((?:${topFolders.map(escape).join("|")})/${PATH_CHARS}*|(?:${rootFiles.map(escape).join("|")})(?![\\w-]))`,
    "g",
  );
  for (const m of part.matchAll(rooted)) {
    if (/[*<{[]/.test(part[m.index + m[1].length] ?? "")) continue;
    const decision = /^docs\/decisions\/\d{4}(?=[.,:;]*$)/.exec(m[1]);
    if (decision) {
      // 5. A decision by its number.
      const records = files.filter((f) => f.startsWith(`${decision[0]}-`) && f.endsWith(".md"));
      found.push({
        offset: m.index,
        reference: decision[0],
        resolved: records.length === 1 ? records[0] : decision[0],
      });
      continue;
    }
    add(m.index, m[1], m[1]);
  }
  // 2. Relative to the file.
  for (const m of part.matchAll(new RegExp(`(?<![\\w./~@:-])(\\.\\.?/${PATH_CHARS}+)`, "g"))) {
    if (/[*<{[]/.test(part[m.index + m[1].length] ?? "") || m[1].replace(/[.,:;]+$/, "").endsWith("/")) continue;
    add(m.index, m[1], path.posix.join(dir, m[1]));
  }
  if (file.endsWith(".md")) {
    // 3. Markdown link targets.
    for (const m of part.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1].replace(/#.*$/, "");
      if (target === "" || /^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      found.push({ offset: m.index, reference: m[1], resolved: path.posix.join(dir, target) });
    }
    // 4. A module named by its file name in an area's README.
    if (dir !== "." && path.posix.basename(file) === "README.md") {
      for (const m of part.matchAll(/`([\w.-]+\.tsx?)`/g))
        found.push({ offset: m.index, reference: m[1], resolved: path.posix.join(dir, m[1]) });
    }
  }
  return found;
}

/** Every reference in the given files, with the line it is on and the repository path it resolves to. */
export function collectReferences(files: string[]): Reference[] {
  const topFolders = [...new Set(files.filter((f) => f.includes("/")).map((f) => f.slice(0, f.indexOf("/"))))];
  const rootFiles = files.filter((f) => !f.includes("/"));
  const references: Reference[] = [];
  for (const file of files) {
    if (!kindOf(file)) continue;
    const text = readFileSync(path.join(ROOT, file), "utf8");
    for (const [start, part] of searchedParts(file, text)) {
      for (const { offset, reference, resolved } of referencesIn(file, part, files, topFolders, rootFiles)) {
        const line = text.slice(0, start + offset).split("\n").length;
        references.push({ file, line, reference, resolved: path.posix.normalize(resolved) });
      }
    }
  }
  return references;
}

/** The references that name no existing path inside the repository. */
export function broken(references: Reference[], exists: (resolved: string) => boolean): Reference[] {
  return references.filter(({ resolved }) => {
    const inside = resolved !== ".." && !resolved.startsWith("../") && !path.posix.isAbsolute(resolved);
    return !inside || !(exists(resolved) || gitIgnores(resolved));
  });
}

const onDisk = (resolved: string) => existsSync(path.join(ROOT, resolved));
function gitIgnores(resolved: string): boolean {
  try {
    execFileSync("git", ["check-ignore", "-q", "--no-index", resolved], { cwd: ROOT, stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
const show = (references: Reference[]) =>
  references.map((r) => `${r.file}:${r.line} names ${r.reference} (${r.resolved})`);

describe("paths named in documents, comments and toml", () => {
  const references = collectReferences(repositoryFiles());
  const brokenNow = broken(references, onDisk);

  it("every one exists in the repository", () => {
    expect(show(brokenNow)).toEqual([]);
  });

  it("a renamed file leaves its citations broken, and they are found", () => {
    // As if app/sync/intake-batcher.server.ts had been renamed: each document and comment citing it is reported.
    const renamed = "app/sync/intake-batcher.server.ts";
    const before = new Set(show(brokenNow));
    const found = broken(references, (resolved) => resolved !== renamed && onDisk(resolved)).filter(
      (r) => !before.has(show([r])[0]),
    );
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((r) => r.resolved === renamed)).toBe(true);
    // In documents, in its area's README (by its full path and by its file name) and in code comments.
    const citing = found.map((r) => r.file);
    expect(citing).toEqual(expect.arrayContaining(["docs/performance.md", "app/sync/README.md"]));
    expect(found.filter((r) => r.file === "app/sync/README.md").map((r) => r.reference)).toEqual(
      expect.arrayContaining(["app/sync/intake-batcher.server.ts", "intake-batcher.server.ts"]),
    );
    expect(citing.some((file) => /^app\/.*\.tsx?$/.test(file))).toBe(true);
    // A module named by its file name in its area's README, and a decision record cited from a code comment.
    const gone = (name: string) =>
      broken(references, (resolved) => resolved !== name && onDisk(resolved)).filter((r) => r.resolved === name);
    expect(
      gone("app/sync/queue.server.ts").some(
        (r) => r.file === "app/sync/README.md" && r.reference === "queue.server.ts",
      ),
    ).toBe(true);
    expect(gone("docs/decisions/0002-sql-on-hot-paths.md").some((r) => /^app\/.*\.ts$/.test(r.file))).toBe(true);
  });
});
