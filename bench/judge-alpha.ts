// Time of the batch nominal Krippendorff alpha (spec cross-judge.md §6 textbook part, §10 item 2) for
// 10,000 items × 5 critics with 5 labels and ~5 % missing values (errored verdicts).
// Target ≤ 50 ms median in plain Node. Run directly: `npx node bench/judge-alpha.ts`.
import { batchAgreement } from "../src/engines/judge/index.ts";
import { defaultRng, nominalAlpha } from "../src/engines/stats/index.ts";

const ITEMS = 10_000;
const CRITICS = 5;
const LABELS = ["KEEP", "REJECT", "SPLIT", "MERGE", "UNCLEAR"];
const WARMUP = 5;
const RUNS = 30;

/** Deterministic input: a true label per item, each critic copies it with p = 0.7, else draws any label. */
function input(): (string | null)[][] {
  const rng = defaultRng(7);
  const u = () => rng.next32() / 2 ** 32;
  return Array.from({ length: ITEMS }, () => {
    const truth = LABELS[Math.floor(u() * LABELS.length)];
    return Array.from({ length: CRITICS }, () =>
      u() < 0.05 ? null : u() < 0.7 ? truth : LABELS[Math.floor(u() * LABELS.length)],
    );
  });
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

/** Median and p90 wall time of `nominalAlpha` over RUNS timed runs after WARMUP untimed ones. */
export async function benchJudgeAlpha(): Promise<{
  items: number;
  critics: number;
  labels: number;
  runs: number;
  median_ms: number;
  p90_ms: number;
}> {
  const data = input();
  let sink = 0;
  for (let i = 0; i < WARMUP; i++) sink += nominalAlpha(data).alpha ?? 0;
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    sink += nominalAlpha(data).alpha ?? 0;
    times.push(performance.now() - t0);
  }
  if (!Number.isFinite(sink)) throw new Error("benchJudgeAlpha: alpha is not finite");
  times.sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return {
    items: ITEMS,
    critics: CRITICS,
    labels: LABELS.length,
    runs: RUNS,
    median_ms: round(quantile(times, 0.5)),
    p90_ms: round(quantile(times, 0.9)),
  };
}

if (import.meta.main) {
  console.log(JSON.stringify(await benchJudgeAlpha()));
  // For scale: the whole batch report (matrix alpha + 10 pairwise alphas + per-critic rates), one run.
  const data = input();
  const t0 = performance.now();
  batchAgreement(
    data,
    ["c0", "c1", "c2", "c3", "c4"],
    data.map((row) => row.find((x) => x !== null) ?? null),
  );
  console.log(JSON.stringify({ batch_agreement_ms: Math.round((performance.now() - t0) * 1000) / 1000 }));
}
