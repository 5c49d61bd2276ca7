// A new reasoning-quality run without code, the original's web-app flow: a dataset (uploaded with a
// preview, or generated), ticked models, a preset or custom weights normalised to 1, K and P, Run. The
// run's page then shows live progress and, once it has ended, the results and the Excel report.
import { useMemo, useState } from "preact/hooks";
import { createReasoningQualityRun } from "@assay/sdk";
import { call, client } from "../../api.ts";
import { href, navigate } from "../../route.ts";
import {
  buildRunRequest,
  defaultModels,
  itemCount,
  plannedCalls,
  type DatasetChoice,
  type ModelRow,
  type RqForm,
} from "./request.ts";
import { DatasetStep, NumberField } from "./dataset.tsx";
import { NumberInput } from "./number-input.tsx";
import { ModelsStep } from "./models.tsx";
import { WeightsStep, type WeightsState } from "./weights.tsx";
import "./form.css";

/** The API's limit on a run's units (docs/limits.md): models × items × (K + P). */
const MAX_UNITS = 10_000;

export function ReasoningQualityForm() {
  const [dataset, setDataset] = useState<DatasetChoice>({ kind: "uploaded", id: null, nItems: null, numSamples: null });
  const [models, setModels] = useState<ModelRow[]>(defaultModels);
  const [weights, setWeights] = useState<WeightsState>({
    preset: "paper-v8",
    custom: false,
    name: "custom",
    weights: {
      correctness: 0.5,
      consistency: 0.5,
      robustness: 0.5,
      logical_coherence: 0.5,
      efficiency: 0.5,
      stability: 0.5,
    },
  });
  const [K, setK] = useState(3);
  const [P, setP] = useState(3);
  const [matcher, setMatcher] = useState<RqForm["matcher"]>("canonical");
  const [ls, setLs] = useState<RqForm["ls"]>("lexical");
  const [ss, setSs] = useState<RqForm["ss"]>("jaccard");
  const [seed, setSeed] = useState(0);
  const [concurrency, setConcurrency] = useState<number | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const form: RqForm = {
    models,
    dataset,
    K,
    P,
    preset: weights.preset,
    custom: weights.custom ? { name: weights.name, weights: weights.weights } : null,
    matcher,
    ls,
    ss,
    seed,
    concurrency,
  };
  const built = useMemo(
    () => buildRunRequest(form),
    [models, dataset, K, P, weights, matcher, ls, ss, seed, concurrency],
  );
  const calls = plannedCalls(form);
  const items = itemCount(dataset);
  const ticked = models.filter((m) => m.enabled).length;

  const submit = async (e: Event) => {
    e.preventDefault();
    if (!built.body) return;
    setSubmitting(true);
    setError(null);
    try {
      const run = await call(createReasoningQualityRun({ client, body: built.body }));
      navigate(href.run(run.id));
    } catch (err) {
      setError((err as Error).message);
      setSubmitting(false);
    }
  };

  return (
    <form class="rq-form" onSubmit={submit} noValidate>
      <h1>New reasoning-quality run</h1>
      <p class="hint">
        Six dimensions of reasoning per model (correctness, consistency, robustness, logical coherence, efficiency,
        stability), combined into Q under each weighting strategy.
      </p>
      <DatasetStep onChange={setDataset} />
      <ModelsStep models={models} onChange={setModels} />
      <WeightsStep value={weights} onChange={setWeights} />
      <section class="rq-step" aria-labelledby="rq-runs">
        <h2 id="rq-runs">4. Runs per item</h2>
        <div class="rq-grid">
          <NumberField label="K: runs per item (CS, SS)" value={K} min={1} max={10} onValue={setK} />
          <NumberField label="P: perturbations per item (RS)" value={P} min={0} max={10} onValue={setP} />
        </div>
        <details class="rq-more">
          <summary>More settings</summary>
          <div class="rq-grid">
            <label>
              Answer matcher (CQ)
              <select value={matcher} onChange={(e) => setMatcher(e.currentTarget.value as RqForm["matcher"])}>
                <option value="canonical">canonical: type-aware</option>
                <option value="legacy7">legacy7: the README's seven strategies</option>
              </select>
            </label>
            <label>
              Logical coherence (LS)
              <select value={ls} onChange={(e) => setLs(e.currentTarget.value as RqForm["ls"])}>
                <option value="lexical">lexical: the original's negation heuristic</option>
                <option value="none">none: left out of Q</option>
              </select>
            </label>
            <label>
              Stability (SS)
              <select value={ss} onChange={(e) => setSs(e.currentTarget.value as RqForm["ss"])}>
                <option value="jaccard">jaccard: overlap of the traces</option>
                <option value="none">none: left out of Q</option>
              </select>
            </label>
            <NumberField label="Simulator seed" value={seed} min={0} onValue={setSeed} />
            <label>
              Concurrency (empty: adaptive)
              <NumberInput
                value={concurrency}
                min={1}
                max={100}
                step={1}
                placeholder="adaptive"
                onValue={setConcurrency}
              />
            </label>
          </div>
        </details>
      </section>
      <section class="rq-step rq-submit" aria-labelledby="rq-run">
        <h2 id="rq-run">5. Run</h2>
        <p class="rq-plan" data-calls={calls ?? ""}>
          {calls === null
            ? "Choose a dataset to see how many model calls the run makes."
            : `${calls.toLocaleString("en")} model calls: ${ticked} ${ticked === 1 ? "model" : "models"} × ${items} items × (K ${K} + P ${P}).`}
        </p>
        {calls !== null && calls > MAX_UNITS && (
          <p class="error">
            A run may make at most {MAX_UNITS.toLocaleString("en")} calls: use fewer items, models, K or P.
          </p>
        )}
        {built.problems.length > 0 && (
          <ul class="rq-problems">
            {built.problems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        )}
        <button type="submit" disabled={!built.body || submitting}>
          {submitting ? "Starting…" : "Run evaluation"}
        </button>
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        <p class="hint">
          The run's page follows its progress live; when it has ended it shows the score cards, the tables and the Excel
          report.
        </p>
      </section>
    </form>
  );
}
