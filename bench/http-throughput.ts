// Throughput of POST /v1/vrty/score as served by `wrangler dev` on loopback, measured with autocannon.
import autocannon from "autocannon";
import { DEV_API_KEY } from "../scripts/dev-setup.ts";
import { startWranglerDev } from "../scripts/wrangler-dev.ts";

export type HttpResult = { seconds: number; connections: number; requests: number; rps: number; p50_ms: number; p99_ms: number; non2xx: number; errors: number };

export async function benchHttpThroughput({ port = 8797, seconds = 10, connections = 16 } = {}): Promise<HttpResult> {
  const dev = await startWranglerDev(port);
  try {
    const body = JSON.stringify({
      prompt: "How does a Durable Object keep state across requests?",
      response:
        "A Durable Object keeps its state in transactional storage attached to the object. Requests for the same id reach the same instance, so reads see earlier writes. The in-memory copy is a cache that can be rebuilt from storage after eviction.",
    });
    const opts = {
      url: `${dev.base}/v1/vrty/score`,
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
    await dev.stop();
  }
}
