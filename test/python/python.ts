// The Python the Python tests run with, and the environment they get: what test/python/*.test.ts share.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { REFERENCE_REQUIRED, REFERENCE_ROOT } from "../support/reference.ts";

export const ROOT = join(import.meta.dirname, "..", "..");
export const PYTHON_DIR = join(ROOT, "python");
export const PYTHON_SRC = join(PYTHON_DIR, "src");
/** The dev key test/cli/setup.ts's wrangler dev is seeded with (scripts/wrangler-dev.ts). */
export const DEV_KEY = "assay_sk_local_dev_key";

export type Python = { ok: true; executable: string; version: string } | { ok: false; reason: string };

/**
 * `$PYTHON` or `python3` on PATH, as the absolute interpreter it resolves to (not a pyenv shim, which
 * needs variables the tests do not pass), if it is 3.10 or newer. Synchronous: test ids are listed at
 * collection time.
 */
export function findPython(): Python {
  const command = process.env.PYTHON || "python3";
  let out: string;
  try {
    out = execFileSync(command, ["-c", "import sys; print(sys.executable); print('%d.%d' % sys.version_info[:2])"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (e) {
    return { ok: false, reason: `no Python: \`${command}\` did not run (${(e as Error).message.split("\n")[0]})` };
  }
  const [executable, version] = out.trim().split("\n");
  const [major, minor] = version.split(".").map(Number);
  if (major < 3 || (major === 3 && minor < 10)) {
    return { ok: false, reason: `Python ${version} at ${executable}: the client needs 3.10 or newer` };
  }
  return { ok: true, executable, version };
}

/** Whether a missing or old Python fails the suite (CI sets PYTHON_REQUIRED=1) instead of skipping. */
export const pythonRequired = () => process.env.PYTHON_REQUIRED === "1";

/**
 * The only environment a Python test process gets: no variable of the machine's beyond PATH and HOME,
 * the server's address and key, the fake model endpoint, the package on PYTHONPATH, `tmp` as TMPDIR
 * (a folder of the caller's, removed after) and where the originals' READMEs are (REFERENCE_DIR).
 */
export function pythonEnv(
  server: { assayUrl: string; fakeOpenAIUrl: string },
  tmp: string,
  extra: Record<string, string> = {},
): NodeJS.ProcessEnv {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/root",
    ASSAY_URL: server.assayUrl,
    ASSAY_API_KEY: DEV_KEY,
    FAKE_OPENAI_URL: server.fakeOpenAIUrl,
    PYTHONPATH: PYTHON_SRC,
    TMPDIR: tmp,
    // No __pycache__ folders left in the work tree; text in UTF-8 whatever the machine's locale.
    PYTHONDONTWRITEBYTECODE: "1",
    PYTHONUTF8: "1",
    // The originals' READMEs (the facades' quick-starts) sit beside the golden vectors: the same folder
    // and the same rule as the TypeScript parity tests, so CI fails rather than skips without them.
    REFERENCE_DIR: REFERENCE_ROOT,
    ...(REFERENCE_REQUIRED ? { REFERENCE_REQUIRED: "1" } : {}),
    ...extra,
  };
  // ProcessEnv declares the Worker's bindings (worker-configuration.d.ts); a child process has none of them.
  return env as NodeJS.ProcessEnv;
}
