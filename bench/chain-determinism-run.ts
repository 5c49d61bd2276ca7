// A 10-query × 50-replay chain-determinism run (500 replays of 5 turns) through `wrangler dev`,
// against a fake OpenAI-compatible server that answers every request after exactly 200 ms.
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { join } from "node:path";
import { registerScenario } from "../test/support/fake-openai.ts";
import { DEV_API_KEY } from "../scripts/dev-setup.ts";
import { startWranglerDev, type StateIn } from "../scripts/wrangler-dev.ts";

/** The fake endpoint in a child process (see fake-openai-process.ts). */
async function startFakeServer(): Promise<{ url: string; close(): Promise<void> }> {
  const child = spawn(process.execPath, [join(import.meta.dirname, "fake-openai-process.ts")], { stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.once("data", (d: Buffer) => resolve(d.toString().trim().split("\n")[0]));
    child.once("exit", (code) => reject(new Error(`fake server exited with ${code}`)));
  });
  return { url, close: async () => void child.kill() };
}

/**
 * Receives the runs' final webhooks: the wall time ends when the API tells its client the run is
 * over, as a client would learn it, with no polling load on the workerd under test.
 */
async function startFinalHookReceiver(): Promise<{ url: string; final(runId: string): Promise<void>; close(): void }> {
  const waiting = new Map<string, () => void>();
  const arrived = new Set<string>();
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      res.writeHead(204).end();
      const runId = (JSON.parse(body) as { data?: { id?: string } }).data?.id;
      if (!runId) return;
      arrived.add(runId);
      waiting.get(runId)?.();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    final: (runId) =>
      new Promise<void>((resolve, reject) => {
        if (arrived.has(runId)) return resolve();
        const timer = setTimeout(() => reject(new Error(`no final webhook for ${runId} within 5 minutes`)), 5 * 60_000);
        waiting.set(runId, () => (clearTimeout(timer), resolve()));
      }),
    close: () => server.close(),
  };
}

export type RunBench = { replays: number; succeeded: number; concurrency: number; wall_s: number; ideal_s: number; ratio: number; status: string };

export async function benchChainDeterminismRun({ port = 8798, queries = 10, replays = 50, concurrency = 50, turns = 5, delayMs = 200, stateIn = "disk" as StateIn } = {}): Promise<RunBench> {
  const fake = await startFakeServer();
  const hooks = await startFinalHookReceiver();
  const dev = await startWranglerDev(port, stateIn);
  try {
    const model = "bench";
    await registerScenario(fake.url, { id: model, agent: { calls: turns - 1 }, delay_ms: delayMs, record: false });
    const headers = { "content-type": "application/json", authorization: `Bearer ${DEV_API_KEY}` };
    // Deliveries are signed with the tenant's secret, so the tenant needs one.
    const secret = await fetch(`${dev.base}/v1/webhooks/secret`, { method: "POST", headers });
    if (secret.status !== 201) throw new Error(`webhook secret: ${secret.status} ${await secret.text()}`);
    const request = (n: number) => ({
      model,
      provider: { base_url: fake.url, api_key: "sk-bench" },
      n_queries: n,
      n_replays: n === queries ? replays : 1,
      concurrency,
      min_success: n === queries ? 5 : 2,
      webhook_url: hooks.url,
    });
    const run = async (n: number) => {
      const res = await fetch(`${dev.base}/v1/chain-determinism/runs`, { method: "POST", headers, body: JSON.stringify(request(n)) });
      if (res.status !== 202) throw new Error(`run creation failed: ${res.status} ${await res.text()}`);
      const { id } = (await res.json()) as { id: string };
      await hooks.final(id);
      const seen = performance.now();
      const r = (await (await fetch(`${dev.base}/v1/runs/${id}`, { headers })).json()) as { status: string; progress: { done: number; failed: number } };
      return { ...r, seen };
    };
    await run(1); // warm-up: compiles the Worker and its Durable Objects
    const started = performance.now();
    const result = await run(queries);
    const wall_s = (result.seen - started) / 1000;
    const total = queries * replays;
    const ideal_s = (Math.ceil(total / concurrency) * turns * delayMs) / 1000;
    return { replays: total, succeeded: result.progress.done, concurrency, wall_s, ideal_s, ratio: wall_s / ideal_s, status: result.status };
  } finally {
    hooks.close();
    await dev.stop();
    await fake.close();
  }
}

if (import.meta.main) console.log(await benchChainDeterminismRun());
