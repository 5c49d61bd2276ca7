// The harness's default workload (10 queries × 50 replays × 5 turns, every answer 200 ms after its
// request) with default settings (no `concurrency`), through `wrangler dev`, against a fake endpoint
// that refuses (429) requests above an in-flight limit: what the adaptive limiter makes of it.
// `node bench/adaptive-concurrency.ts [--before] [--reference]` prints the table; `--before` adds the
// old default (a fixed concurrency of 5) against the first endpoint (about 100 s more), `--reference`
// a fixed concurrency of 50 there (what knowing the limit in advance gives).
import os from "node:os";
import { registerScenario, scenarioStats, type RateLimit } from "../test/support/fake-openai.ts";
import { DEV_API_KEY } from "../scripts/dev-setup.ts";
import { startWranglerDev, type StateIn } from "../scripts/wrangler-dev.ts";
import { startFakeServer, startFinalHookReceiver } from "./support.ts";

export type AdaptiveBench = {
  mode: string;
  replays: number;
  failed: number;
  wall_s: number;
  ideal_s: number;
  ratio: number;
  /** The largest window the run's limiter reached, and the most requests the endpoint admitted at once. */
  max_limit: number;
  max_admitted: number;
  rate_limited: number;
  status: string;
};

type Mode = { name: string; limit: RateLimit; concurrency?: number };

export const MODES: Mode[] = [
  { name: "429 above 50 in flight", limit: { max_in_flight: 50 } },
  { name: "429 above 8 in flight", limit: { max_in_flight: 8 } },
];

export async function benchAdaptiveConcurrency({
  port = 8801,
  queries = 10,
  replays = 50,
  turns = 5,
  delayMs = 200,
  stateIn = "disk" as StateIn,
  modes = MODES,
} = {}): Promise<AdaptiveBench[]> {
  const fake = await startFakeServer();
  const hooks = await startFinalHookReceiver();
  const dev = await startWranglerDev(port, stateIn);
  const headers = { "content-type": "application/json", authorization: `Bearer ${DEV_API_KEY}` };
  const out: AdaptiveBench[] = [];
  try {
    const secret = await fetch(`${dev.base}/v1/webhooks/secret`, { method: "POST", headers });
    if (secret.status !== 201) throw new Error(`webhook secret: ${secret.status} ${await secret.text()}`);
    // Each mode gets its own API key (a limiter is per tenant, endpoint and key), so one mode's
    // learned window does not carry into the next.
    let n = 0;
    const run = async (model: string, nQueries: number, nReplays: number, concurrency: number | undefined) => {
      const body = {
        model,
        provider: { base_url: fake.url, api_key: `sk-bench-${model}` },
        n_queries: nQueries,
        n_replays: nReplays,
        min_success: Math.min(5, Math.max(2, nReplays)),
        webhook_url: hooks.url,
        ...(concurrency ? { concurrency } : {}),
      };
      const started = performance.now();
      const res = await fetch(`${dev.base}/v1/chain-determinism/runs`, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
      });
      if (res.status !== 202) throw new Error(`run creation failed: ${res.status} ${await res.text()}`);
      const { id } = (await res.json()) as { id: string };
      await hooks.final(id);
      const wall_s = (performance.now() - started) / 1000;
      const r = (await (await fetch(`${dev.base}/v1/runs/${id}`, { headers })).json()) as {
        status: string;
        progress: { done: number; failed: number };
        endpoint: { max_limit: number } | null;
      };
      return { ...r, wall_s };
    };
    // Warm-up: compiles the Worker and its Durable Objects.
    const warm = `warm-${n++}`;
    await registerScenario(fake.url, { id: warm, agent: { calls: 1 }, record: false });
    await run(warm, 1, 2, undefined);
    for (const mode of modes) {
      const model = `adaptive-${n++}`;
      await registerScenario(fake.url, {
        id: model,
        agent: { calls: turns - 1 },
        delay_ms: delayMs,
        record: false,
        rate_limit: mode.limit,
      });
      const r = await run(model, queries, replays, mode.concurrency);
      const stats = await scenarioStats(fake.url, model);
      const total = queries * replays;
      // What the endpoint allows at best: its limit (or the run's fixed concurrency, if lower) in flight all the time.
      const width = Math.min(mode.limit.max_in_flight, mode.concurrency ?? Infinity);
      const ideal_s = (total * turns * delayMs) / width / 1000;
      out.push({
        mode: mode.name + (mode.concurrency ? `, concurrency ${mode.concurrency}` : ""),
        replays: total,
        failed: r.progress.failed,
        wall_s: r.wall_s,
        ideal_s,
        ratio: r.wall_s / ideal_s,
        max_limit: r.endpoint?.max_limit ?? 0,
        max_admitted: stats.max_admitted ?? 0,
        rate_limited: stats.rate_limited ?? 0,
        status: r.status,
      });
    }
    return out;
  } finally {
    hooks.close();
    await dev.stop();
    await fake.close();
  }
}

export function printAdaptiveConcurrency(rows: AdaptiveBench[]): void {
  console.log(
    "\nadaptive concurrency: 10 queries × 50 replays × 5 turns via wrangler dev, no `concurrency` given, fake endpoint answering after 200 ms",
  );
  console.log(
    "| endpoint | replays | failed | wall s | ideal s | wall / ideal | max window | max admitted | 429s | status |",
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|");
  for (const r of rows) {
    console.log(
      `| ${r.mode} | ${r.replays} | ${r.failed} | ${r.wall_s.toFixed(2)} | ${r.ideal_s.toFixed(2)} | ${r.ratio.toFixed(3)} | ${r.max_limit} | ${r.max_admitted} | ${r.rate_limited} | ${r.status} |`,
    );
  }
}

if (import.meta.main) {
  const cpu = os.cpus()[0]?.model ?? "unknown CPU";
  console.log(`machine: ${cpu}, ${os.cpus().length} cores, Node ${process.version}`);
  const modes = [...MODES];
  // The same endpoint with a fixed concurrency, in the same sitting: the old default, and the best a fixed setting can do.
  if (process.argv.includes("--before")) modes.push({ ...MODES[0], concurrency: 5 });
  if (process.argv.includes("--reference")) modes.push({ ...MODES[0], concurrency: 50 });
  printAdaptiveConcurrency(await benchAdaptiveConcurrency({ modes }));
}
