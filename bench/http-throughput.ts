// Throughput of POST /v1/vrty/score as served by `wrangler dev` on loopback, measured with autocannon.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { DEV_API_KEY, ensureDevVars, prepareLocalDb } from "../scripts/dev-setup.ts";

const root = join(import.meta.dirname, "..");

export type HttpResult = { seconds: number; connections: number; requests: number; rps: number; p50_ms: number; p99_ms: number; non2xx: number; errors: number };

async function waitForHealthy(url: string, deadlineMs: number): Promise<void> {
  const until = Date.now() + deadlineMs;
  while (Date.now() < until) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`wrangler dev did not answer ${url} within ${deadlineMs} ms`);
}

export async function benchHttpThroughput({ port = 8797, seconds = 10, connections = 16 } = {}): Promise<HttpResult> {
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
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitForHealthy(`${base}/healthz`, 60_000);
    const body = JSON.stringify({
      prompt: "How does a Durable Object keep state across requests?",
      response:
        "A Durable Object keeps its state in transactional storage attached to the object. Requests for the same id reach the same instance, so reads see earlier writes. The in-memory copy is a cache that can be rebuilt from storage after eviction.",
    });
    const opts = {
      url: `${base}/v1/vrty/score`,
      method: "POST" as const,
      headers: { "content-type": "application/json", authorization: `Bearer ${DEV_API_KEY}` },
      body,
      connections,
    };
    await autocannon({ ...opts, duration: 2 }); // warm-up: first requests compile the Worker and load the IDF table
    const r = await autocannon({ ...opts, duration: seconds });
    return {
      seconds,
      connections,
      requests: r.requests.total,
      rps: r.requests.average,
      p50_ms: r.latency.p50,
      p99_ms: r.latency.p99,
      non2xx: r.non2xx,
      errors: r.errors,
    };
  } finally {
    try {
      process.kill(-dev.pid!, "SIGTERM");
    } catch {
      // already gone
    }
    await new Promise((r) => setTimeout(r, 500));
    rmSync(state, { recursive: true, force: true });
  }
}
