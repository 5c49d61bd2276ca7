// Runs of 1,000, 10,000 and 50,000 units through `wrangler dev`: reasoning-quality on simulated models
// (no network, no latency), so what is measured is the platform (plan, lanes, Queue, outbox, D1 sample
// storage, the aggregate and where the result goes), per unit. Each size gets a fresh wrangler dev, so the
// memory figures are that run's alone.
//
// Memory: workerd does not enforce a Durable Object's 128 MB locally, and exposes no per-object heap. What
// is measured is the workerd process that runs the Worker (the largest of wrangler's workerd children):
// its resident set after a warm-up run, and its peak (VmHWM) once the run has ended. The growth between
// the two bounds the coordinator's memory from above: it also holds the lanes, D1's and SQLite's caches.
//
// Production's limits (src/platform/limits.ts), for the run: the largest value or row stored and the
// most D1 queries and subrequests one invocation made, as the Worker counted them (GET
// /v1/admin/platform; locally the Worker and its objects share one isolate, so its marks are the
// run's), and the D1 database's growth over the run per 1,000 units (its SQLite file's pages, indexes
// included: what counts toward a database's 10 GB) beside the bytes of the samples' own text.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import os from "node:os";
import { DEV_API_KEY } from "../scripts/dev-setup.ts";
import { startWranglerDev, type StateIn } from "../scripts/wrangler-dev.ts";
import { startFinalHookReceiver } from "./support.ts";

export type ScaleRow = {
  units: number;
  models: number;
  items: number;
  status: string;
  done: number;
  wall_s: number;
  ms_per_unit: number;
  rss_before_mb: number;
  rss_peak_mb: number;
  result_bytes: number | null;
  result_inline: boolean;
  /** GET /v1/admin/platform after the run. */
  platform: PlatformMarks;
  /** Growth of the D1 database over the run, and the samples' text (output, error, unit id), per 1,000 units. */
  d1_bytes_per_1000: number;
  d1_sample_text_per_1000: number;
};

type PlatformMarks = {
  d1_queries: { most: number; invocation: string; limit: number };
  subrequests: { most: number; invocation: string; limit: number };
  stored_value: { largest_bytes: number; what: string; limit_bytes: number };
};

/** Every run's size: models × items × K generations (P = 0, so the count is exact). */
export const SIZES = [
  { models: 1, items: 200 },
  { models: 5, items: 400 },
  { models: 5, items: 2_000 },
  // 10,000 items: a config of about 4 MB, kept by the coordinator in pieces under production's 2 MB.
  { models: 1, items: 10_000 },
] as const;
const K = 5;

/** The /proc status fields (kB) of every workerd process descended from this one. */
function workerdProcesses(): { pid: number; rss: number; hwm: number }[] {
  const parent = new Map<number, number>();
  const workerd: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      // "pid (comm) state ppid ...": comm may hold spaces, so read after its closing parenthesis.
      const close = stat.lastIndexOf(")");
      parent.set(Number(name), Number(stat.slice(close + 2).split(" ")[1]));
      if (stat.slice(stat.indexOf("(") + 1, close).startsWith("workerd")) workerd.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  const mine = (pid: number) => {
    for (let p = pid; p > 1; p = parent.get(p) ?? 0) if (p === process.pid) return true;
    return false;
  };
  return workerd.filter(mine).map((pid) => {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0);
    return { pid, rss: kb("VmRSS"), hwm: kb("VmHWM") };
  });
}

/**
 * The workerd process that ran the Worker, between two readings of every workerd process: the one whose
 * peak grew most over its resident set at the first reading (wrangler starts more than one workerd).
 */
function workerProcess(
  before: ReturnType<typeof workerdProcesses>,
  after: ReturnType<typeof workerdProcesses>,
): { rss: number; hwm: number } {
  const grown = after.flatMap((a) => {
    const b = before.find((p) => p.pid === a.pid);
    return b ? [{ rss: b.rss, hwm: a.hwm }] : [];
  });
  if (!grown.length) throw new Error("no workerd process under this one (is /proc readable?)");
  return grown.reduce((x, y) => (y.hwm - y.rss > x.hwm - x.rss ? y : x));
}

/** The local D1 database's SQLite file under a wrangler dev's state folder. */
function d1File(state: string): string {
  const dir = join(state, "v3", "d1", "miniflare-D1DatabaseObject");
  const file = readdirSync(dir).find((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite");
  if (!file) throw new Error(`no D1 database under ${dir}`);
  return join(dir, file);
}

/** The database's size as SQLite sees it (its pages, committed WAL included) and the run's samples' text bytes. */
function d1Bytes(state: string, runId: string | null): { db: number; samples: number } {
  const db = new DatabaseSync(d1File(state), { readOnly: true });
  try {
    const pages = db.prepare("PRAGMA page_count").get() as { page_count: number };
    const size = db.prepare("PRAGMA page_size").get() as { page_size: number };
    const text = runId
      ? (db
          .prepare(
            "SELECT sum(length(CAST(coalesce(output, '') AS BLOB)) + length(CAST(coalesce(error, '') AS BLOB)) + length(unit_id)) AS n FROM samples WHERE run_id = ?",
          )
          .get(runId) as { n: number | null })
      : { n: 0 };
    return { db: pages.page_count * size.page_size, samples: text.n ?? 0 };
  } finally {
    db.close();
  }
}

/** The operator token wrangler dev runs with (.dev.vars, made from the example by ensureDevVars). */
function adminToken(): string {
  const vars = readFileSync(join(import.meta.dirname, "..", ".dev.vars"), "utf8");
  const token = /^ADMIN_TOKEN=(.*)$/m.exec(vars)?.[1]?.trim();
  if (!token) throw new Error(".dev.vars has no ADMIN_TOKEN");
  return token;
}

async function oneSize(
  { models, items }: { models: number; items: number },
  port: number,
  stateIn: StateIn,
  hooks: Awaited<ReturnType<typeof startFinalHookReceiver>>,
): Promise<ScaleRow> {
  const dev = await startWranglerDev(port, stateIn);
  try {
    const headers = { "content-type": "application/json", authorization: `Bearer ${DEV_API_KEY}` };
    // Deliveries are signed with the tenant's secret, so the tenant needs one.
    const secret = await fetch(`${dev.base}/v1/webhooks/secret`, { method: "POST", headers });
    if (secret.status !== 201) throw new Error(`webhook secret: ${secret.status} ${await secret.text()}`);
    // Synthetic items of two kinds, each dataset at most 1,000 of a kind.
    const datasets = (n: number) =>
      Array.from({ length: Math.ceil(n / 1000) }, (_, d) => ({
        synthetic: { seed: d, num_reasoning: Math.min(1000, n - d * 1000), num_adversarial: 0, num_robustness: 0 },
      }));
    const run = async (m: number, n: number) => {
      const body = {
        models: Array.from({ length: m }, (_, i) => ({
          name: `sim-${i}`,
          model: "sim:reasoner",
          simulator: { accuracy: 0.5 + i / 20 },
        })),
        datasets: datasets(n),
        K,
        P: 0,
        concurrency: 50,
        webhook_url: hooks.url,
      };
      const started = performance.now();
      const res = await fetch(`${dev.base}/v1/reasoning-quality/runs`, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
      });
      if (res.status !== 202) throw new Error(`run creation failed: ${res.status} ${await res.text()}`);
      const { id } = (await res.json()) as { id: string };
      await hooks.final(id, 30 * 60_000);
      const wall_s = (performance.now() - started) / 1000;
      const r = (await (await fetch(`${dev.base}/v1/runs/${id}`, { headers })).json()) as {
        status: string;
        progress: { done: number; total: number };
        result: unknown;
        result_size_bytes: number | null;
      };
      return { ...r, id, wall_s };
    };
    await run(1, 4); // warm-up: compiles the Worker and its Durable Objects
    const before = workerdProcesses();
    const d1Before = d1Bytes(dev.state, null).db;
    const r = await run(models, items);
    const worker = workerProcess(before, workerdProcesses());
    const d1After = d1Bytes(dev.state, r.id);
    const marks = await fetch(`${dev.base}/v1/admin/platform`, {
      headers: { authorization: `Bearer ${adminToken()}` },
    });
    if (marks.status !== 200) throw new Error(`GET /v1/admin/platform: ${marks.status} ${await marks.text()}`);
    const units = models * items * K;
    if (r.progress.total !== units) throw new Error(`expected ${units} units, the run has ${r.progress.total}`);
    return {
      units,
      models,
      items,
      status: r.status,
      done: r.progress.done,
      wall_s: r.wall_s,
      ms_per_unit: (r.wall_s * 1000) / units,
      rss_before_mb: worker.rss / 1024,
      rss_peak_mb: worker.hwm / 1024,
      result_bytes: r.result_size_bytes,
      result_inline: r.result !== null,
      platform: (await marks.json()) as PlatformMarks,
      d1_bytes_per_1000: ((d1After.db - d1Before) / units) * 1000,
      d1_sample_text_per_1000: (d1After.samples / units) * 1000,
    };
  } finally {
    await dev.stop();
  }
}

/** One run per size (`sizes`, default SIZES), each on a fresh wrangler dev. */
export async function benchScale({
  port = 8799,
  stateIn = "disk" as StateIn,
  sizes = SIZES as readonly { models: number; items: number }[],
} = {}): Promise<ScaleRow[]> {
  const hooks = await startFinalHookReceiver();
  try {
    const rows: ScaleRow[] = [];
    for (const size of sizes) rows.push(await oneSize(size, port, stateIn, hooks));
    return rows;
  } finally {
    hooks.close();
  }
}

/** The figures as a markdown table, with the spread of the per-unit cost (the target: within 1.5×). */
export function printScale(rows: readonly ScaleRow[]): void {
  console.log(
    `reasoning-quality runs on sim:reasoner (K = ${K}, P = 0, concurrency 50) through wrangler dev; memory: the Worker's workerd process`,
  );
  console.log(
    "| units | models × items | status | wall s | ms/unit | workerd RSS after warm-up MB | workerd peak RSS MB | result bytes (where) |",
  );
  console.log("|---:|---|---|---:|---:|---:|---:|---|");
  for (const r of rows) {
    console.log(
      `| ${r.units.toLocaleString("en")} | ${r.models} × ${r.items} | ${r.status} (${r.done} done) | ${r.wall_s.toFixed(1)} | ${r.ms_per_unit.toFixed(2)} | ${r.rss_before_mb.toFixed(0)} | ${r.rss_peak_mb.toFixed(0)} | ${r.result_bytes ?? "–"} (${r.result_inline ? "row" : "R2"}) |`,
    );
  }
  console.log(
    `\nthe same runs against production's limits (GET /v1/admin/platform after each; D1: the database's growth over the run)`,
  );
  console.log(
    "| units | largest value stored, bytes (limit) | what | most D1 queries in one invocation (limit) | by | most subrequests (limit) | by | D1 bytes / 1,000 units | of which samples' text |",
  );
  console.log("|---:|---:|---|---:|---|---:|---|---:|---:|");
  for (const r of rows) {
    const p = r.platform;
    console.log(
      `| ${r.units.toLocaleString("en")} | ${p.stored_value.largest_bytes.toLocaleString("en")} (${p.stored_value.limit_bytes.toLocaleString("en")}) | ${p.stored_value.what} | ${p.d1_queries.most} (${p.d1_queries.limit}) | ${p.d1_queries.invocation} | ${p.subrequests.most} (${p.subrequests.limit}) | ${p.subrequests.invocation} | ${Math.round(r.d1_bytes_per_1000).toLocaleString("en")} | ${Math.round(r.d1_sample_text_per_1000).toLocaleString("en")} |`,
    );
  }
  // The per-unit cost compares the runs of up to 2,000 items, as it did before the 10,000-item size.
  const costs = rows.filter((r) => r.items <= 2_000).map((r) => r.ms_per_unit);
  console.log(
    `\nper-unit cost, largest over smallest run: ${(costs[costs.length - 1] / costs[0]).toFixed(2)}× (target ≤ 1.5×)`,
  );
}

if (import.meta.main) {
  const cpu = os.cpus()[0]?.model ?? "unknown CPU";
  console.log(`machine: ${cpu}, ${os.cpus().length} cores, Node ${process.version}\n`);
  // `node bench/scale.ts 1000 10000`: only the sizes named (by units).
  const only = process.argv.slice(2).map(Number).filter(Boolean);
  const sizes = only.length ? SIZES.filter((s) => only.includes(s.models * s.items * K)) : SIZES;
  printScale(await benchScale({ sizes }));
}
