// Issue 24, "One formatter and one linter": CI runs Biome with biome.jsonc (`npm run lint`, which is
// `biome ci --error-on-warnings`); these tests prove that step can fail. The same binary and config,
// run over a throwaway tree laid out like the repository, must exit non-zero naming exactly the
// deliberate violations, and must pass a tree that keeps to the rules and their stated exceptions.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");
const BIOME = join(ROOT, "node_modules/@biomejs/biome/bin/biome");

const trees: string[] = [];
afterAll(() => {
  for (const t of trees) rmSync(t, { recursive: true, force: true });
});

/** Writes `files` (path → source) beside a copy of the repository's biome.jsonc. */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "assay-lint-"));
  trees.push(dir);
  copyFileSync(join(ROOT, "biome.jsonc"), join(dir, "biome.jsonc"));
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), source);
  }
  return dir;
}

/**
 * Runs the lint step as CI does, less git (the tree is no repository, so .gitignore cannot be read):
 * its exit status, and each finding as `<rule or "format">: <file>`.
 */
function lint(dir: string): { status: number | null; findings: string[] } {
  const r = spawnSync(
    process.execPath,
    [BIOME, "ci", "--error-on-warnings", "--vcs-enabled=false", "--reporter=github", "."],
    {
      cwd: dir,
      encoding: "utf8",
    },
  );
  if (r.error) throw r.error;
  const findings = [...r.stdout.matchAll(/^::\w+ title=([^,]+),file=([^,]+),/gm)].map(
    ([, rule, file]) => `${rule}: ${file.slice(dir.length + 1)}`,
  );
  return { status: r.status, findings: findings.sort() };
}

describe("the lint step (Biome, biome.jsonc)", () => {
  it("fails, naming each one, on a format error, a lint error and a lint warning", () => {
    const dir = tree({
      // Single quotes: the code's style is double quotes.
      "src/engines/quoted.ts": "export const c = 'x';\n",
      // A warning (an unused import) fails CI like an error.
      "src/engines/unused.ts": 'import { a, b } from "./quoted.ts";\nexport const c = a;\n',
      // An error: a number literal that cannot be held exactly (a 64-bit seed must travel as a string).
      "src/providers/seed.ts": "export const seed = 18446744073709551615;\n",
      // `any` is refused outside the tests.
      "src/db/any.ts": "export const f = (x: any) => x;\n",
    });
    expect(lint(dir)).toEqual({
      status: 1,
      findings: [
        "format: src/engines/quoted.ts",
        "lint/correctness/noPrecisionLoss: src/providers/seed.ts",
        "lint/correctness/noUnusedImports: src/engines/unused.ts",
        "lint/suspicious/noExplicitAny: src/db/any.ts",
      ],
    });
  });

  it("passes a tree that keeps to the rules, with the exceptions biome.jsonc states", () => {
    const dir = tree({
      "src/engines/ok.ts": "export const ok = (m: Map<string, number>, k: string) => m.has(k) && m.get(k)! > 0;\n",
      // Tests may read untyped JSON.
      "test/any.test.ts": "export const f = (x: any) => x;\n",
      // Generated and data files are not ours to format.
      "sdk/src/types.gen.ts": "export type T = { a: 'x' }\n",
      "sdk/openapi.json": '{"openapi":"3.1.0"}\n',
      "worker-configuration.d.ts": "interface Env {\n\tA: string\n}\n",
    });
    expect(lint(dir)).toEqual({ status: 0, findings: [] });
  });
});
