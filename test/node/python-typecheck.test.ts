// pyright narrows the generated unions (python/src/assay_client/types.py) on their discriminator, and
// so refuses a key the narrowed type lacks: the check `npm run lint:python` makes is able to fail.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const PYRIGHT = createRequire(import.meta.url).resolve("pyright/index.js");
const SRC = join(import.meta.dirname, "..", "..", "python", "src");

type Diagnostic = { severity: string; message: string; range: { start: { line: number } } };

/** pyright's errors for one Python file checked as python/ is (Python 3.10, strict, assay_client importable). */
function pyrightErrors(dir: string, code: string): Diagnostic[] {
  writeFileSync(join(dir, "snippet.py"), code);
  writeFileSync(
    join(dir, "pyrightconfig.json"),
    JSON.stringify({ include: ["snippet.py"], strict: ["snippet.py"], pythonVersion: "3.10", extraPaths: [SRC] }),
  );
  let out: string;
  try {
    out = execFileSync(process.execPath, [PYRIGHT, "--outputjson", "-p", dir], { encoding: "utf8" });
  } catch (e) {
    // pyright exits 1 when it reports errors; its JSON is on stdout all the same.
    out = (e as { stdout: string }).stdout;
  }
  const report = JSON.parse(out) as { generalDiagnostics: Diagnostic[] };
  return report.generalDiagnostics.filter((d) => d.severity === "error");
}

const narrowed = (key: string) => `from typing import Optional
from assay_client.types import Run

def contested_count(run: Run) -> Optional[int]:
    if run["evaluator"] == "judge":
        result = run["result"]
        if result is not None:
            return result[${JSON.stringify(key)}]["count"]
    return None
`;

describe("pyright narrows a Run on its evaluator", () => {
  const dir = mkdtempSync(join(tmpdir(), "assay-pyright-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("accepts a judge result's key after `run['evaluator'] == 'judge'`", () => {
    expect(pyrightErrors(dir, narrowed("contested"))).toEqual([]);
  });

  it("refuses a key the judge result does not have", () => {
    const errors = pyrightErrors(dir, narrowed("contestedd"));
    // The line with the wrong key (0-based 7), and no other: strict mode adds its unknown-type error there.
    expect(new Set(errors.map((e) => e.range.start.line))).toEqual(new Set([7]));
    expect(errors.map((e) => e.message).join("\n")).toContain('"contestedd" is not a defined key in "JudgeResult"');
  });

  it("refuses a judge-only key before narrowing", () => {
    const code = `from assay_client.types import Run

def critics(run: Run) -> int:
    return len(run["config"]["critics"])
`;
    const errors = pyrightErrors(dir, code);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.map((e) => e.message).join("\n")).toContain('"critics" is not a defined key');
  });
});
