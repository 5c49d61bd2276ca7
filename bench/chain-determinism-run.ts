// A 10-query × 50-replay chain-determinism run (500 replays of 5 turns) through `wrangler dev`,
// against a fake OpenAI-compatible server that answers every request after exactly 200 ms. Besides
// the wall time it counts what the lanes asked of the Durable Objects per model call, from the line
// each lane activation logs (unit-runner.ts): requests to the endpoint's limiter and to the run's
// coordinator, and the most subrequests one lane invocation made; and where the time over the ideal
// goes at both ends, from when the endpoint saw each request: the start (from the POST to the
// request that fills the run's concurrency) and the finish (from the last answer to the webhook).
import { recordedRequests, registerScenario, scenarioStats } from "../test/support/fake-openai.ts";
import { DEV_API_KEY } from "../scripts/dev-setup.ts";
import { startWranglerDev, type StateIn } from "../scripts/wrangler-dev.ts";
import { startFakeServer, startFinalHookReceiver } from "./support.ts";

export type RunBench = {
  replays: number;
  succeeded: number;
  concurrency: number;
  wall_s: number;
  ideal_s: number;
  ratio: number;
  status: string;
  /** Model requests the endpoint received in the measured run, and the lanes' requests to the limiter and the coordinator per model request. */
  model_requests: number;
  limiter_per_call: number;
  coordinator_per_call: number;
  /** The most subrequests one lane invocation made (production's limit: 10,000). */
  max_lane_subrequests: number;
  /** From the POST to the endpoint's `concurrency`-th request (every lane calling), in s: ideally 0. */
  start_s: number;
  /** From the endpoint's last answer to the final webhook's arrival, in s: ideally 0. */
  finish_s: number;
};

type LaneLine = {
  event: "lane";
  lane: string;
  limiter_requests: number;
  coordinator_requests: number;
  subrequests: number;
};

/** The lanes' log lines in wrangler's output (one JSON object per line, possibly split across chunks). */
function laneLines() {
  let rest = "";
  const lines: LaneLine[] = [];
  return {
    lines,
    take(text: string) {
      const parts = (rest + text).split("\n");
      rest = parts.pop() ?? "";
      for (const part of parts) {
        const at = part.indexOf('{"level"');
        if (at < 0) continue;
        try {
          const line = JSON.parse(part.slice(at)) as LaneLine;
          if (line.event === "lane") lines.push(line);
        } catch {
          // not one of ours
        }
      }
    },
  };
}

export async function benchChainDeterminismRun({
  port = 8798,
  queries = 10,
  replays = 50,
  concurrency = 50,
  turns = 5,
  delayMs = 200,
  stateIn = "disk" as StateIn,
} = {}): Promise<RunBench> {
  const fake = await startFakeServer();
  const hooks = await startFinalHookReceiver();
  const logged = laneLines();
  const dev = await startWranglerDev(port, stateIn, logged.take);
  try {
    const model = "bench";
    // Recorded: each request's arrival time is what the start and finish figures are read from.
    await registerScenario(fake.url, { id: model, agent: { calls: turns - 1 }, delay_ms: delayMs });
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
      const posted = Date.now();
      const res = await fetch(`${dev.base}/v1/chain-determinism/runs`, {
        method: "POST",
        headers,
        body: JSON.stringify(request(n)),
      });
      if (res.status !== 202) throw new Error(`run creation failed: ${res.status} ${await res.text()}`);
      const { id } = (await res.json()) as { id: string };
      await hooks.final(id);
      const seen = performance.now();
      const hooked = Date.now();
      const r = (await (await fetch(`${dev.base}/v1/runs/${id}`, { headers })).json()) as {
        status: string;
        progress: { done: number; failed: number };
      };
      return { ...r, id, seen, posted, hooked };
    };
    await run(1); // warm-up: compiles the Worker and its Durable Objects
    const warmRequests = (await scenarioStats(fake.url, model)).received;
    const started = performance.now();
    const result = await run(queries);
    const wall_s = (result.seen - started) / 1000;
    const total = queries * replays;
    const ideal_s = (Math.ceil(total / concurrency) * turns * delayMs) / 1000;
    // The lanes log when they go idle, just after their last report: wait for the measured run's.
    const lanesOf = () => logged.lines.filter((l) => l.lane.startsWith(`${result.id}:`));
    for (let i = 0; i < 50 && new Set(lanesOf().map((l) => l.lane)).size < concurrency; i++)
      await new Promise((r) => setTimeout(r, 100));
    const lanes = lanesOf();
    const model_requests = (await scenarioStats(fake.url, model)).received - warmRequests;
    // The fake endpoint and this process share the machine's clock; it answers each request delayMs after its arrival.
    const arrivals = (await recordedRequests(fake.url, model))
      .map((r) => r.at)
      .filter((at) => at >= result.posted)
      .sort((a, b) => a - b);
    const start_s = ((arrivals[Math.min(concurrency, arrivals.length) - 1] ?? result.posted) - result.posted) / 1000;
    const finish_s = (result.hooked - (arrivals[arrivals.length - 1] + delayMs)) / 1000;
    const sum = (f: (l: LaneLine) => number) => lanes.reduce((a, l) => a + f(l), 0);
    return {
      replays: total,
      succeeded: result.progress.done,
      concurrency,
      wall_s,
      ideal_s,
      ratio: wall_s / ideal_s,
      status: result.status,
      model_requests,
      limiter_per_call: sum((l) => l.limiter_requests) / model_requests,
      coordinator_per_call: sum((l) => l.coordinator_requests) / model_requests,
      max_lane_subrequests: Math.max(0, ...lanes.map((l) => l.subrequests)),
      start_s,
      finish_s,
    };
  } finally {
    hooks.close();
    await dev.stop();
    await fake.close();
  }
}

if (import.meta.main) console.log(await benchChainDeterminismRun());
