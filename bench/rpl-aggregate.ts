// Time of the RPL frozen estimator (spec rpl.md §9) for K = 16 templates × R = 3 replicates with
// B = 5,000 bootstrap iterations: about 160k PCG64 steps, 5,000 trimmed centers and one 5,000-value sort.
// Target ≤ 25 ms median in plain Node (numpy takes ~550 ms). Run directly: `npx node bench/rpl-aggregate.ts`.
import { aggregateClustered } from "../src/engines/rpl/index.ts";
import { defaultRng } from "../src/engines/stats/index.ts";

const K = 16;
const R = 3;
const B = 5000;
const WARMUP = 5;
const RUNS = 30;

/** Deterministic input: template t's logits are around −1 + t/16, spread by a seeded generator. */
function input(): [string, number[]][] {
  const rng = defaultRng(2024);
  const out: [string, number[]][] = [];
  for (let t = 0; t < K; t++) {
    const logits = Array.from({ length: R }, () => -1 + t / 16 + (rng.next32() / 2 ** 32 - 0.5) * 0.4);
    out.push([`tpl-${t.toString().padStart(2, "0")}`, logits]);
  }
  return out;
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

/** Median and p90 wall time of `aggregateClustered` over RUNS timed runs after WARMUP untimed ones. */
export async function benchRplAggregate(): Promise<{
  k: number;
  r: number;
  b: number;
  runs: number;
  median_ms: number;
  p90_ms: number;
}> {
  const data = input();
  const opts = { seed: "12832905136507635011", B };
  let sink = 0;
  for (let i = 0; i < WARMUP; i++) sink += aggregateClustered(data, opts).ell_hat;
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    sink += aggregateClustered(data, opts).ci_logit[0];
    times.push(performance.now() - t0);
  }
  if (Number.isNaN(sink)) throw new Error("benchRplAggregate: aggregation produced NaN");
  times.sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return { k: K, r: R, b: B, runs: RUNS, median_ms: round(quantile(times, 0.5)), p90_ms: round(quantile(times, 0.9)) };
}

if (import.meta.main) {
  console.log(JSON.stringify(await benchRplAggregate()));
}
