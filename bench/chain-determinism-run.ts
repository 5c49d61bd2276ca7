// A 10-query × 50-replay chain-determinism run (500 replays of 5 turns) through `wrangler dev`,
// against a fake OpenAI-compatible server that answers every request after exactly 200 ms.
import { registerScenario } from "../test/support/fake-openai.ts";
import { DEV_API_KEY } from "../scripts/dev-setup.ts";
import { startWranglerDev, type StateIn } from "../scripts/wrangler-dev.ts";
import { startFakeServer, startFinalHookReceiver } from "./support.ts";

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
