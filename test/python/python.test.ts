// The Python client's tests (python/tests, unittest) against the e2e project's wrangler dev and fake
// model endpoint (test/cli/setup.ts), one vitest test per Python test, so CI's closing line counts them.
// The ids are listed at collection (python/tests/_runner.py --list), the whole Python suite runs once in
// beforeAll (--json), and each test here reports its own outcome, traceback or skip reason.
// By hand: `npm run test:python` (or `npx vitest run --project e2e test/python`).
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, inject, it } from "vitest";
import { findPython, PYTHON_DIR, pythonEnv, pythonRequired, ROOT } from "./python.ts";

const RUNNER = join(PYTHON_DIR, "tests", "_runner.py");
const ARTIFACT = join(ROOT, "test-artifacts", "python-tests-stderr.txt");
// Bounds the wait for the whole Python suite (it creates and waits on runs), not a claim about speed.
const SUITE_TIMEOUT_MS = 30 * 60_000;

type Outcome = { id: string; outcome: "passed" | "failed" | "error" | "skipped"; traceback: string; reason: string };

const python = findPython();
const server = { assayUrl: inject("assayUrl"), fakeOpenAIUrl: inject("fakeOpenAIUrl") };

if (!python.ok) {
  describe("python/tests", () => {
    if (pythonRequired()) {
      it("needs Python 3.10 or newer (PYTHON_REQUIRED=1)", () => {
        throw new Error(python.reason);
      });
    } else it.skip(`python/tests skipped: ${python.reason}`, () => {});
  });
} else {
  const work = mkdtempSync(join(tmpdir(), "assay-python-run-"));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  const listed = listTests(python.executable, work);
  const results = new Map<string, Outcome>();
  let stderr = "";

  beforeAll(async () => {
    if (!listed.ok) return;
    // An earlier run's output would read as this run's.
    rmSync(ARTIFACT, { force: true });
    const out = join(work, "results.jsonl");
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(python.executable, [RUNNER, "--json", out], {
        cwd: ROOT,
        env: pythonEnv(server, work),
        stdio: ["ignore", "pipe", "pipe"],
      });
      child.stdout.on("data", (d: Buffer) => (stderr += d.toString()));
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      child.on("error", reject);
      child.on("close", resolve);
    });
    if (existsSync(out)) {
      for (const line of readFileSync(out, "utf8").split("\n").filter(Boolean)) {
        const record = JSON.parse(line) as Outcome;
        results.set(record.id, record);
      }
    }
    // What the Python process printed (unittest's progress and tracebacks), kept when anything failed.
    if (code !== 0 || [...results.values()].some((r) => r.outcome === "failed" || r.outcome === "error")) {
      mkdirSync(join(ROOT, "test-artifacts"), { recursive: true });
      writeFileSync(ARTIFACT, stderr);
    }
  }, SUITE_TIMEOUT_MS);

  if (!listed.ok) {
    it("lists the Python tests", () => {
      throw new Error(`python/tests/_runner.py --list failed:\n${listed.error}`);
    });
  }
  const byModule = new Map<string, string[]>();
  for (const id of listed.ok ? listed.ids : []) {
    const module = id.split(".")[0];
    byModule.set(module, [...(byModule.get(module) ?? []), id]);
  }
  for (const [module, ids] of byModule) {
    describe(`python/tests: ${module}`, () => {
      for (const id of ids) {
        it(id.slice(module.length + 1), (ctx) => {
          const r = results.get(id);
          if (!r)
            throw new Error(`${id} has no result: the Python run ended early (${ARTIFACT})\n${stderr.slice(-4000)}`);
          if (r.outcome === "skipped") ctx.skip(r.reason);
          if (r.outcome !== "passed") throw new Error(`${id} ${r.outcome}:\n${r.traceback}`);
        });
      }
    });
  }
}

/** The Python test ids, discovered without running anything (no server needed). */
function listTests(executable: string, tmp: string): { ok: true; ids: string[] } | { ok: false; error: string } {
  try {
    const out = execFileSync(executable, [RUNNER, "--list"], {
      cwd: ROOT,
      env: pythonEnv(server, tmp),
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    return {
      ok: true,
      ids: out
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as string),
    };
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    return { ok: false, error: err.stderr || err.message };
  }
}
