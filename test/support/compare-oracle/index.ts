// GET /v1/compare as it answered before issue 23, for the tests to hold the stored-basis path against:
// the runs' rows and results, every sample read from D1 and handed to the samples-based comparers.
import { openDb, type Db } from "../../../src/db/client.ts";
import { getRun, listSamples, type RunRow } from "../../../src/db/runs.ts";
import { datasetItems as datasetItemsOf, getDataset } from "../../../src/db/datasets.ts";
import { loadResult } from "../../../src/runs/results/result-store.ts";
import { evaluators } from "../../../src/evaluators/registry.ts";
import { overallVerdict } from "../../../src/runs/plugin/compare.ts";
import { storedSample, type StoredSample } from "../../../src/runs/plugin/types.ts";
import type { ComparedRun, Comparer } from "./compare.ts";
import { chainDeterminismComparer } from "./chain-determinism.ts";
import { judgeComparer } from "./judge.ts";
import { rqComparer } from "./reasoning-quality.ts";
import { rplComparer } from "./rpl.ts";

const COMPARERS: Record<string, Comparer<never, never>> = {
  "chain-determinism": chainDeterminismComparer as never,
  judge: judgeComparer as never,
  "reasoning-quality": rqComparer as never,
  rpl: rplComparer as never,
};

async function allSamples(db: Db, run: RunRow): Promise<StoredSample[]> {
  const evaluator = evaluators.get(run.evaluator);
  const out: StoredSample[] = [];
  for (let after: number | undefined; ; ) {
    const page = await listSamples(db, run.id, { limit: 500, afterSeq: after });
    out.push(...page.map((row) => storedSample(evaluator, row)));
    if (page.length < 500) return out;
    after = page[page.length - 1].seq;
  }
}

/** The comparison of two comparable succeeded runs of the tenant, as the samples-based route built it. */
export async function oracleComparison(
  env: { DB: D1Database; RESULTS: R2Bucket },
  tenantId: string,
  q: { base: string; head: string; confidence?: number; min_effect?: number },
): Promise<unknown> {
  const db = openDb(env.DB);
  const [base, head] = [(await getRun(db, tenantId, q.base))!, (await getRun(db, tenantId, q.head))!];
  const comparer = COMPARERS[base.evaluator] as Comparer;
  const compared = async (run: RunRow): Promise<ComparedRun> => ({
    id: run.id,
    config: run.config,
    result: await loadResult(env.RESULTS, run),
    samples: () => allSamples(db, run),
  });
  const datasetItems = async (id: string) => {
    const row = await getDataset(db, tenantId, id);
    return row ? datasetItemsOf<unknown>(db, row.id) : null;
  };
  const [confidence, minEffect] = [q.confidence ?? 0.95, q.min_effect ?? 0];
  const result = await comparer.compare(await compared(base), await compared(head), {
    confidence,
    minEffect,
    datasetItems,
  });
  return {
    object: "comparison",
    evaluator: base.evaluator,
    base: { id: base.id },
    head: { id: head.id },
    confidence,
    min_effect: minEffect,
    paired: result.paired,
    verdict: overallVerdict(result.metrics),
    metrics: result.metrics,
    flipped: result.flipped,
    details: result.details,
  };
}
