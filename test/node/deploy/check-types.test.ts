// Issue 23, "From the README to a deployment": the committed worker-configuration.d.ts cannot go stale
// (scripts/check-types.ts regenerates it and compares the text; `wrangler types --check` reads a hash).
// Issue 24, "One source of Worker types": the committed file is the Env alone, and a binding added to
// wrangler.jsonc without regenerating it fails the check.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyEdits, modify } from "jsonc-parser";
import { afterAll, describe, expect, it } from "vitest";
import { firstDifference } from "../../../scripts/check-types.ts";

const ROOT = join(import.meta.dirname, "../../..");
const dir = mkdtempSync(join(tmpdir(), "assay-types-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const checkTypes = (args: string[] = []) =>
  spawnSync(process.execPath, ["scripts/check-types.ts", ...args], { cwd: ROOT, encoding: "utf8" });
const committed = readFileSync(join(ROOT, "worker-configuration.d.ts"), "utf8");

// Each case runs `wrangler types`; this bounds the wait on a loaded machine, not a speed.
describe("scripts/check-types.ts", { timeout: 120_000 }, () => {
  it("passes for the committed file", () => {
    const r = checkTypes();
    expect(r.status, r.stdout + r.stderr).toBe(0);
  });

  it("commits the Env alone: no runtime types, no ESLint directive", () => {
    expect(committed).toContain("interface Env extends __BaseEnv_Env {}");
    expect(committed).not.toContain("Begin runtime types");
    expect(committed).not.toContain("declare abstract class D1Database");
    expect(committed).not.toContain("eslint");
  });

  it("fails for a hand-edited copy whose header hash still matches, naming the line", () => {
    const edited = committed.replace("\tSECRETS_KEY: string;", "\tSECRETS_KEY: number;");
    expect(edited).not.toBe(committed);
    const file = join(dir, "edited.d.ts");
    writeFileSync(file, edited);
    const r = checkTypes(["--committed", file]);
    expect(r.status).toBe(1);
    const line = committed.split("\n").indexOf("\tSECRETS_KEY: string;") + 1;
    expect(r.stderr).toContain(`line ${line} is\n  \tSECRETS_KEY: number;`);
    expect(r.stderr).toContain("npm run cf-typegen");
  });

  it("fails when wrangler.jsonc gains a binding the committed types lack", () => {
    const source = readFileSync(join(ROOT, "wrangler.jsonc"), "utf8");
    // The copy lives elsewhere, so its entry point is named absolutely (wrangler resolves it from the file).
    let config = applyEdits(source, modify(source, ["main"], join(ROOT, "src/index.ts"), {}));
    config = applyEdits(
      config,
      modify(config, ["kv_namespaces", -1], { binding: "EXTRA_CACHE", id: "1".repeat(32) }, { isArrayInsertion: true }),
    );
    const file = join(dir, "wrangler.jsonc");
    writeFileSync(file, config);
    expect(committed).not.toContain("EXTRA_CACHE");
    const r = checkTypes(["--config", file]);
    expect(r.status, r.stdout + r.stderr).toBe(1);
    expect(r.stderr).toContain("now make\n  \tEXTRA_CACHE: KVNamespace;");
  });

  it("firstDifference names the first line that differs, or null", () => {
    expect(firstDifference("a\nb\nc", "a\nb\nc")).toBeNull();
    expect(firstDifference("a\nb\nc", "a\nx\nc")).toEqual({ line: 2, committed: "b", fresh: "x" });
    expect(firstDifference("a\nb", "a\nb\nc")).toEqual({ line: 3, committed: "(end of file)", fresh: "c" });
  });
});
