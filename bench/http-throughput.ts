// Throughput and latency of POST /v1/vrty/score as served by `wrangler dev` on loopback, measured with
// autocannon, for a short pair and a 2,000-token response. Requests/s is taken at 16 connections (the
// issue's figure); latency also at 1 connection, where it is the request path's own cost rather than time
// spent queueing behind 15 others on workerd's one thread.
// Run alone: `npx node bench/http-throughput.ts` (`--seconds N`, `--port N`).
import { readdirSync, readFileSync } from "node:fs";
import autocannon from "autocannon";
import { DEV_API_KEY } from "../scripts/dev-setup.ts";
import { startWranglerDev } from "../scripts/wrangler-dev.ts";
import { tokenize } from "../src/engines/vrty/index.ts";

export type HttpResult = {
  pair: string;
  response_tokens: number;
  seconds: number;
  connections: number;
  requests: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  non2xx: number;
  errors: number;
  /**
   * CPU time wrangler dev (its node proxy and workerd) spent per request, in ms; NaN off Linux. Unlike
   * req/s it hardly moves when other work shares the machine, so it compares two versions fairly there.
   */
  server_cpu_ms: number;
};

const PROMPT = "How does a Durable Object keep state across requests?";
const SHORT =
  "A Durable Object keeps its state in transactional storage attached to the object. Requests for the same id reach the same instance, so reads see earlier writes. The in-memory copy is a cache that can be rebuilt from storage after eviction.";

/** Exactly `tokens` tokens of English prose (the short answer and variations of it, repeated), checked with vrty's tokenizer. */
function responseOf(tokens: number): string {
  const sentences = [
    SHORT,
    "Each object runs on one thread, so two requests never change its state at the same time.",
    "An alarm wakes the object later, and the storage it wrote before sleeping is still there when it wakes.",
    "When the object is evicted from memory, the next request loads it again from storage, which is the source of truth.",
  ];
  const words: string[] = [];
  for (let i = 0; tokenize(words.join(" ")).length < tokens; i++)
    words.push(...sentences[i % sentences.length].split(" "));
  while (tokenize(words.join(" ")).length > tokens) words.pop();
  const text = words.join(" ");
  if (tokenize(text).length !== tokens) throw new Error(`bench: response is not ${tokens} tokens`);
  return text;
}

/** The pairs scored: what a chat answer and a long document look like (vrty scores at most 2,048 tokens). */
export const PAIRS = {
  short: { prompt: PROMPT, response: SHORT },
  "2,000-token": { prompt: PROMPT, response: responseOf(2000) },
} as const;
export type PairName = keyof typeof PAIRS;

/** Fields of /proc/<pid>/stat after the command name (which may hold spaces): [0] is the state, [1] ppid, [11] utime, [12] stime. */
function statFields(pid: string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined; // gone, or not Linux
  }
}

/** CPU seconds used so far by the `wrangler dev` listening on `port` and every process below it (workerd). */
function serverCpuSeconds(port: number): number {
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  } catch {
    return Number.NaN;
  }
  const parent = new Map<string, string>();
  for (const pid of pids) {
    const f = statFields(pid);
    if (f) parent.set(pid, f[1]);
  }
  const root = pids.find((pid) => {
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      return (
        args.includes("dev") &&
        args[args.indexOf("--port") + 1] === String(port) &&
        args.some((a) => a.endsWith("wrangler-dist/cli.js"))
      );
    } catch {
      return false;
    }
  });
  if (!root) return Number.NaN;
  const inTree = (pid: string): boolean => {
    for (let p: string | undefined = pid, hops = 0; p && p !== "0" && hops < 64; p = parent.get(p), hops++)
      if (p === root) return true;
    return false;
  };
  // utime and stime are in clock ticks, 100 a second on Linux.
  let ticks = 0;
  for (const pid of parent.keys()) {
    if (!inTree(pid)) continue;
    const f = statFields(pid);
    if (f) ticks += Number(f[11]) + Number(f[12]);
  }
  return ticks / 100;
}

function request(base: string, pair: PairName, connections: number) {
  return {
    url: `${base}/v1/vrty/score`,
    method: "POST" as const,
    headers: { "content-type": "application/json", authorization: `Bearer ${DEV_API_KEY}` },
    body: JSON.stringify(PAIRS[pair]),
    connections,
  };
}

/**
 * Both pairs for a few seconds each before anything is measured: the first seconds of a fresh workerd
 * (compiling the Worker, loading the IDF table, the JIT warming up) measured 20–30 % slower than later
 * ones, which made whichever pair came first look slower.
 */
async function warmUp(base: string): Promise<void> {
  for (const pair of Object.keys(PAIRS) as PairName[]) await autocannon({ ...request(base, pair, 16), duration: 5 });
}

async function measure(
  base: string,
  port: number,
  pair: PairName,
  connections: number,
  seconds: number,
): Promise<HttpResult> {
  const opts = request(base, pair, connections);
  await autocannon({ ...opts, duration: 2 }); // this pair at this concurrency, so the figure starts steady
  const cpuBefore = serverCpuSeconds(port);
  const r = await autocannon({ ...opts, duration: seconds });
  const cpu = serverCpuSeconds(port) - cpuBefore;
  return {
    pair,
    response_tokens: tokenize(PAIRS[pair].response).length,
    seconds,
    connections,
    requests: r.requests.total,
    rps: r.requests.average,
    p50_ms: r.latency.p50,
    p99_ms: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    server_cpu_ms: (cpu * 1000) / r.requests.total,
  };
}

/** One pair at one number of connections, on a wrangler dev of its own (the figure `npm run bench` printed before issue 19). */
export async function benchHttpThroughput({
  port = 8797,
  seconds = 10,
  connections = 16,
  pair = "short" as PairName,
} = {}): Promise<HttpResult> {
  const dev = await startWranglerDev(port);
  try {
    await warmUp(dev.base);
    return await measure(dev.base, port, pair, connections, seconds);
  } finally {
    await dev.stop();
  }
}

/** Every pair at 16 connections (throughput) and at 1 (latency), on one wrangler dev. */
export async function benchVrtyScoreHttp({
  port = 8797,
  seconds = 10,
  connectionCounts = [16, 1],
} = {}): Promise<HttpResult[]> {
  const dev = await startWranglerDev(port);
  try {
    await warmUp(dev.base);
    const rows: HttpResult[] = [];
    for (const pair of Object.keys(PAIRS) as PairName[]) {
      for (const connections of connectionCounts) rows.push(await measure(dev.base, port, pair, connections, seconds));
    }
    return rows;
  } finally {
    await dev.stop();
  }
}

/** The rows as the markdown table `npm run bench` prints. */
export function printVrtyScoreHttp(
  rows: HttpResult[],
  title = "POST /v1/vrty/score via wrangler dev on loopback (autocannon)",
): void {
  console.log(title);
  console.log(
    "| pair | response tokens | connections | seconds | requests | req/s | p50 ms | p99 ms | server CPU ms / request | non-2xx | errors |",
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of rows) {
    console.log(
      `| ${r.pair} | ${r.response_tokens} | ${r.connections} | ${r.seconds} | ${r.requests} | ${r.rps.toFixed(0)} | ${r.p50_ms} | ${r.p99_ms} | ${r.server_cpu_ms.toFixed(2)} | ${r.non2xx} | ${r.errors} |`,
    );
  }
}

if (import.meta.main) {
  const arg = (name: string, fallback: number) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? Number(process.argv[i + 1]) : fallback;
  };
  printVrtyScoreHttp(await benchVrtyScoreHttp({ port: arg("port", 8797), seconds: arg("seconds", 10) }));
}
