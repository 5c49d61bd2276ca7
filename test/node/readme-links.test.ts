// Issue 24, "a README that is one page": the README stays short and every page of docs/ is reached from
// it; every relative link of the README and of docs/ names a file that exists, and a `#fragment` names a
// heading of that page, so moving a section cannot leave a link behind.
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { anchors, docPages, relativeLinks, slug } from "../support/doc-pages.ts";

const ROOT = join(import.meta.dirname, "../..");
const read = (page: string) => readFileSync(join(ROOT, page), "utf8");

/** What is wrong with each relative link of `page`: a missing file, or a fragment no heading makes. */
function brokenLinks(page: string, text: string, readPage: (path: string) => string | null): string[] {
  const out: string[] = [];
  for (const { line, target } of relativeLinks(text)) {
    const [path, fragment] = target.split("#", 2);
    const file = path === "" ? page : normalize(join(dirname(page), decodeURI(path)));
    const body = readPage(file);
    if (body === null) out.push(`${page}:${line}: ${target}: no such file`);
    else if (fragment !== undefined && file.endsWith(".md") && !anchors(body).has(fragment)) {
      out.push(`${page}:${line}: ${target}: no heading makes #${fragment}`);
    }
  }
  return out;
}

/** The repository's files as brokenLinks reads them; a folder counts as existing, with no headings. */
function fromDisk(path: string): string | null {
  const full = join(ROOT, path);
  if (relative(ROOT, full).startsWith("..") || !existsSync(full)) return null;
  return statSync(full).isDirectory() ? "" : readFileSync(full, "utf8");
}

describe("the README and docs/", () => {
  const pages = docPages(ROOT);

  it("the README is one page: under 200 lines", () => {
    expect(read("README.md").split("\n").length).toBeLessThan(200);
  });

  it("every page of docs/ is reached by links from the README", () => {
    const reached = new Set(["README.md"]);
    const queue = ["README.md"];
    while (queue.length) {
      const page = queue.shift()!;
      for (const { target } of relativeLinks(read(page))) {
        const file = normalize(join(dirname(page), target.split("#")[0] || page));
        if (pages.includes(file) && !reached.has(file)) reached.add(file) && queue.push(file);
      }
    }
    expect(pages.filter((p) => !reached.has(p))).toEqual([]);
  });

  // python/README.md (the Python client's page, with its examples run by test/python/readme.test.ts) too.
  it.each([...pages, "python/README.md"])("%s: every relative link resolves", (page) => {
    expect(brokenLinks(page, read(page), fromDisk)).toEqual([]);
  });

  it("finds what is broken (the check reports a missing file and a missing heading, and passes the rest)", () => {
    const pages: Record<string, string> = {
      "docs/a.md": "# A\n\n## Where the API sends requests\n\n## Runs: `GET /v1/runs`\n",
      "README.md": "",
    };
    const text = [
      "[ok](docs/a.md) [ok](docs/a.md#where-the-api-sends-requests) [ok](docs/a.md#runs-get-v1runs)",
      "[gone](docs/b.md) [stale](docs/a.md#keys-and-tenants) [web](https://example.com/x.md)",
      "`[not a link](docs/c.md)`",
      "```",
      "[in code](docs/d.md)",
      "```",
    ].join("\n");
    expect(brokenLinks("README.md", text, (p) => pages[p] ?? null)).toEqual([
      "README.md:2: docs/b.md: no such file",
      "README.md:2: docs/a.md#keys-and-tenants: no heading makes #keys-and-tenants",
    ]);
  });

  it("makes GitHub's anchors", () => {
    expect(slug("Keys in what is stored and shown")).toBe("keys-in-what-is-stored-and-shown");
    expect(slug("Guessing credentials, and sessions")).toBe("guessing-credentials-and-sessions");
    expect(slug("3. Create the resources: `npm run provision`")).toBe("3-create-the-resources-npm-run-provision");
    expect([...anchors("# A\n## Webhooks\n```\n## not a heading\n```\n## Webhooks\n")]).toEqual([
      "a",
      "webhooks",
      "webhooks-1",
    ]);
  });
});
