// The Python examples of python/README.md and of the README run as written: every ```python block of a
// page, in page order, in ONE fresh Python process (python/tests/_readme_runner.py: one namespace, as a
// reader pastes the page's blocks into one interpreter), against the e2e project's wrangler dev and fake
// model endpoint (test/cli/setup.ts), with pythonEnv's variables only and a scratch folder as the working
// directory (for the README, one that holds the repository's examples/, named as from the root). A block
// that cannot run here says why right above it: <!-- not run: … -->. One vitest test per block, by line.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { codeBlocks } from "../support/doc-pages.ts";
import { findPython, PYTHON_DIR, pythonEnv, pythonRequired, ROOT } from "./python.ts";

const RUNNER = join(PYTHON_DIR, "tests", "_readme_runner.py");
// Bounds the wait for a page's examples (they create runs and wait on them), not a claim about speed.
const PAGE_TIMEOUT_MS = 20 * 60_000;
/** Each page, and what its working folder needs besides being empty. */
const PAGES: { page: string; prepare(work: string): void }[] = [
  { page: "python/README.md", prepare: () => {} },
  { page: "README.md", prepare: (work) => symlinkSync(join(ROOT, "examples"), join(work, "examples")) },
];

const python = findPython();
const server = { assayUrl: inject("assayUrl"), fakeOpenAIUrl: inject("fakeOpenAIUrl") };

type Result = { at: string; ok: boolean; output: string; error: string };

for (const { page, prepare } of PAGES)
  describe.skipIf(!python.ok && !pythonRequired())(`${page}: its Python examples`, () => {
    const blocks = codeBlocks(readFileSync(join(ROOT, page), "utf8"), ["python"]).map((b) => ({
      ...b,
      at: `${page}:${b.line}`,
    }));
    const runnable = blocks.filter((b) => b.notRun === null);
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
      prepare(work);
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

    if (runnable.length === 0) it.skip(`${page} has no \`\`\`python block to run`, () => {});
    for (const b of blocks) {
      if (b.notRun !== null) {
        it.skip(`${b.at} (not run: ${b.notRun})`, () => {});
        continue;
      }
      it(`${b.at} runs`, () => {
        const r = results.get(b.at);
        if (!r)
          throw new Error(`${b.at} did not run: the Python process ended before it\n${processOutput.slice(-4000)}`);
        if (!r.ok) throw new Error(`${b.at} failed:\n${b.code}\n--- printed:\n${r.output}\n--- ${r.error}`);
        expect(r.error).toBe("");
      });
    }
  });
