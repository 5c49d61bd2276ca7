// Issue 24: the dashboard's one registry of evaluators (dashboard/src/evaluators/index.ts). Each folder
// registers its EvaluatorUi when index.ts imports it; a folder without its line there would be silently
// missing from every page, so the folders and the lines must match. (The registry itself is typed with
// Preact's component types, whose DOM library clashes with the Worker's in this project: it is exercised
// by the browser tests, test/browser/toy-evaluator.test.ts among them.)
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const dir = join(import.meta.dirname, "..", "..", "..", "dashboard", "src", "evaluators");

describe("the dashboard's evaluator registry", () => {
  it("evaluators/index.ts has one import line for each evaluator folder, and no other import", () => {
    const folders = readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    const lines = readFileSync(join(dir, "index.ts"), "utf8")
      .split("\n")
      .filter((l) => l.startsWith("import "));
    expect(lines.map((l) => /^import "\.\/([^/]+)\/index\.ts";$/.exec(l)?.[1]).sort()).toEqual(folders);
    expect(folders).toEqual(["chain-determinism", "judge", "reasoning-quality", "rpl", "vrty"]);
  });
});
