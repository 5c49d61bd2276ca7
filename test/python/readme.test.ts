// python/README.md's examples run as written: every ```python block, in page order, in ONE fresh Python
// process (python/tests/_readme_runner.py: one namespace, as a reader pastes the page's blocks into one
// interpreter), against the e2e project's wrangler dev and fake model endpoint (test/cli/setup.ts), with
// pythonEnv's variables only and a scratch folder as the working directory. A block that cannot run
// here says why right above it: <!-- not run: … -->. One vitest test per block, named by its line.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { codeBlocks } from "../support/doc-pages.ts";
import { findPython, PYTHON_DIR, pythonEnv, pythonRequired, ROOT } from "./python.ts";

const PAGE = "python/README.md";
const RUNNER = join(PYTHON_DIR, "tests", "_readme_runner.py");
// Bounds the wait for the page's examples (they create runs and wait on them), not a claim about speed.
const PAGE_TIMEOUT_MS = 20 * 60_000;

const python = findPython();
const server = { assayUrl: inject("assayUrl"), fakeOpenAIUrl: inject("fakeOpenAIUrl") };
const blocks = codeBlocks(readFileSync(join(ROOT, PAGE), "utf8"), ["python"]).map((b) => ({
  ...b,
  at: `${PAGE}:${b.line}`,
}));
const runnable = blocks.filter((b) => b.notRun === null);

type Result = { at: string; ok: boolean; output: string; error: string };

describe.skipIf(!python.ok && !pythonRequired())(`${PAGE}: its Python examples`, () => {
  const dir = mkdtempSync(join(tmpdir(), "assay-python-readme-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const results = new Map<string, Result>();
  let processOutput = "";

  beforeAll(async () => {
    if (!python.ok) throw new Error(python.reason);
    if (runnable.length === 0) return;
    const input = join(dir, "blocks.json");
    const output = join(dir, "results.jsonl");
    writeFileSync(input, JSON.stringify(runnable.map((b) => ({ at: b.at, code: b.code }))));
    const work = mkdtempSync(join(dir, "cwd-"));
    await new Promise<void>((resolve, reject) => {
      const child = spawn(python.executable, [RUNNER, input, output], {
        cwd: work,
        env: pythonEnv(server, work),
        stdio: ["ignore", "pipe", "pipe"],
      });
      child.stdout.on("data", (d: Buffer) => (processOutput += d.toString()));
      child.stderr.on("data", (d: Buffer) => (processOutput += d.toString()));
      child.on("error", reject);
      child.on("close", () => resolve());
    });
    if (existsSync(output)) {
      for (const line of readFileSync(output, "utf8").split("\n").filter(Boolean)) {
        const r = JSON.parse(line) as Result;
        results.set(r.at, r);
      }
    }
  }, PAGE_TIMEOUT_MS);

  if (runnable.length === 0) it.skip(`${PAGE} has no \`\`\`python block to run`, () => {});
  for (const b of blocks) {
    if (b.notRun !== null) {
      it.skip(`${b.at} (not run: ${b.notRun})`, () => {});
      continue;
    }
    it(`${b.at} runs`, () => {
      const r = results.get(b.at);
      if (!r) throw new Error(`${b.at} did not run: the Python process ended before it\n${processOutput.slice(-4000)}`);
      if (!r.ok) throw new Error(`${b.at} failed:\n${b.code}\n--- printed:\n${r.output}\n--- ${r.error}`);
      expect(r.error).toBe("");
    });
  }
});
