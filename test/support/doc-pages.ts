// The documentation pages whose examples the README tests run and whose links they check: the README,
// then every page under docs/ (issue 24: the README is one page, the depth moved to docs/).
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";

export type Block<L extends string = "sh" | "ts"> = { line: number; lang: L; code: string; notRun: string | null };

/**
 * A page's code blocks in `langs` (```sh and ```ts unless told: python/README.md's ```python blocks run
 * in test/python/readme.test.ts) with the line of their opening fence and their "not run" reason.
 */
export function codeBlocks<L extends string = "sh" | "ts">(
  text: string,
  langs: readonly L[] = ["sh", "ts"] as unknown as L[],
): Block<L>[] {
  const lines = text.split("\n");
  const out: Block<L>[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]);
    if (!open) continue;
    let end = i + 1;
    while (end < lines.length && !/^```\s*$/.test(lines[end])) end++;
    const lang = open[1] as L;
    if (langs.includes(lang)) {
      let prev = i - 1;
      while (prev >= 0 && lines[prev].trim() === "") prev--;
      const marker = prev >= 0 ? /^<!-- not run: (.+?) -->$/.exec(lines[prev].trim()) : null;
      out.push({ line: i + 1, lang, code: lines.slice(i + 1, end).join("\n"), notRun: marker ? marker[1] : null });
    }
    i = end;
  }
  return out;
}

/**
 * README.md, then every .md under docs/ in path order, as paths relative to the repository. The order
 * is the order the examples run in one shell session: a page's blocks may use a variable set by an
 * earlier block of the same page, never one set on another page.
 */
export function docPages(root: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir)
      .map((name) => join(dir, name))
      .flatMap((p) => (statSync(p).isDirectory() ? walk(p) : p.endsWith(".md") ? [p] : []));
  const docs = walk(join(root, "docs")).map((p) => relative(root, p).split("\\").join("/"));
  return ["README.md", ...docs.sort()];
}

/** GitHub's anchor for a heading: its text without markup, lower case, punctuation dropped, spaces as hyphens. */
export function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/`/g, "")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors a page's headings make, with GitHub's -1, -2 … for repeated ones. */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of withoutCode(text).split("\n")) {
    const h = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const base = slug(h[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The page's text with its fenced blocks blanked (their lines kept, so line numbers hold). */
function withoutCode(text: string): string {
  let inside = false;
  return text
    .split("\n")
    .map((line) => {
      if (/^```/.test(line)) {
        inside = !inside;
        return "";
      }
      return inside ? "" : line;
    })
    .join("\n");
}

/** Every relative link target of a page (`[text](target)`, images included), outside code, with its line. */
export function relativeLinks(text: string): { line: number; target: string }[] {
  const out: { line: number; target: string }[] = [];
  withoutCode(text)
    .split("\n")
    .forEach((line, i) => {
      // Inline code may show link syntax without being a link.
      for (const m of line.replace(/`[^`]*`/g, "").matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        if (!/^[a-z][a-z0-9+.-]*:/i.test(m[1])) out.push({ line: i + 1, target: m[1] });
      }
    });
  return out;
}
