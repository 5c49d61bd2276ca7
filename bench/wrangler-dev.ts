// Starts `wrangler dev` on a fresh local state for a benchmark, and stops it with its workerd children.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureDevVars, prepareLocalDb } from "../scripts/dev-setup.ts";

const root = join(import.meta.dirname, "..");

export type DevServer = { base: string; stop(): Promise<void> };

export async function startWranglerDev(port: number): Promise<DevServer> {
  const state = mkdtempSync(join(tmpdir(), "assay-bench-"));
  ensureDevVars();
  prepareLocalDb(state);
  // detached: the whole process group (wrangler's node and its workerd children) is stopped together.
  const dev = spawn("wrangler", ["dev", "--ip", "127.0.0.1", "--port", String(port), "--persist-to", state, "--log-level", "error"], {
    cwd: root,
    detached: true,
    stdio: "ignore",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
  });
  const base = `http://127.0.0.1:${port}`;
  const stop = async () => {
    try {
      process.kill(-dev.pid!, "SIGTERM");
    } catch {
      // already gone
    }
    await new Promise((r) => setTimeout(r, 500));
    rmSync(state, { recursive: true, force: true });
  };
  try {
    const until = Date.now() + 60_000;
    for (;;) {
      try {
        if ((await fetch(`${base}/healthz`)).ok) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > until) throw new Error(`wrangler dev did not answer ${base}/healthz within 60 s`);
      await new Promise((r) => setTimeout(r, 250));
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { base, stop };
}
