// Compare two runs (GET /v1/compare): pick two succeeded runs of one evaluator, then the overall
// verdict, each metric's change with its interval as a forest plot and a table, the items that flipped
// and the evaluator's own details (rpl's winner, reasoning-quality's rank changes: its folder's compare
// parts, from the registry). `#/compare/<base>/<head>` links here.
import { useEffect, useMemo, useState } from "preact/hooks";
import { compareRuns, getRun, listRuns, type Comparison, type Run } from "@assay/sdk";
import { call, client } from "../api.ts";
import { evaluators } from "../evaluators/index.ts";
import { href, navigate } from "../route.ts";
import { ChartCanvas } from "../components/chart.tsx";
import {
  type Direction,
  figure,
  forestConfig,
  forestGroups,
  forestHeight,
  intervalText,
  metricLabel,
  pText,
  runLabel,
  signed,
} from "../charts/compare.ts";
import "./compare.css";

/** The pickers list this many of the newest succeeded runs of the evaluator (the API's largest page). */
const PICKER_RUNS = 100;

export function ComparePage({ base, head }: { base?: string; head?: string }) {
  const [evaluator, setEvaluator] = useState<string | null>(null);
  const choices = evaluators.withRuns();
  const [runs, setRuns] = useState<Run[] | null>(null);
  const [pick, setPick] = useState({ base: base ?? "", head: head ?? "" });
  const [confidence, setConfidence] = useState("0.95");
  const [minEffect, setMinEffect] = useState("0");
  // Bumped by the Compare button: the same two runs with other options are fetched again.
  const [asked, setAsked] = useState(0);
  const [comparison, setComparison] = useState<Comparison | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [listError, setListError] = useState<string | null>(null);

  // The evaluator: the linked base run's, else the newest succeeded run's, else the first one.
  useEffect(() => {
    setPick({ base: base ?? "", head: head ?? "" });
    const fallback = () => setEvaluator((cur) => cur ?? choices[0].name);
    if (base) {
      call(getRun({ client, path: { run_id: base } })).then((r) => setEvaluator(r.evaluator), fallback);
    } else {
      call(listRuns({ client, query: { status: "succeeded", limit: 1 } })).then(
        (p) => setEvaluator((cur) => cur ?? p.data[0]?.evaluator ?? choices[0].name),
        fallback,
      );
    }
  }, [base, head]);

  useEffect(() => {
    if (!evaluator) return;
    setRuns(null);
    call(listRuns({ client, query: { evaluator, status: "succeeded", limit: PICKER_RUNS } })).then(
      (page) => {
        setRuns(page.data);
        setListError(null);
        // Nothing linked: offer the newest run as head and the one before it as base.
        setPick((cur) => (cur.base || cur.head ? cur : { base: page.data[1]?.id ?? "", head: page.data[0]?.id ?? "" }));
      },
      (e: Error) => setListError(e.message),
    );
  }, [evaluator]);

  useEffect(() => {
    if (!base || !head) return setComparison(null);
    setLoading(true);
    setError(null);
    call(compareRuns({ client, query: { base, head, confidence: Number(confidence), min_effect: Number(minEffect) } }))
      .then(setComparison, (e: Error) => {
        setComparison(null);
        setError(e.message);
      })
      .finally(() => setLoading(false));
  }, [base, head, asked]);

  const chooseEvaluator = (e: string) => {
    setPick({ base: "", head: "" });
    setEvaluator(e);
  };
  const submit = (ev: Event) => {
    ev.preventDefault();
    navigate(href.compare(pick.base, pick.head));
    setAsked((n) => n + 1);
  };

  return (
    <section class="compare">
      <h1>Compare runs</h1>
      <form class="cmp-form" onSubmit={submit}>
        <label>
          Evaluator
          <select value={evaluator ?? ""} onChange={(e) => chooseEvaluator(e.currentTarget.value)}>
            {choices.map((e) => (
              <option key={e.name} value={e.name}>
                {e.title}
              </option>
            ))}
          </select>
        </label>
        <RunPicker
          label="Base run (before)"
          value={pick.base}
          runs={runs}
          onChange={(id) => setPick((p) => ({ ...p, base: id }))}
        />
        <RunPicker
          label="Head run (after)"
          value={pick.head}
          runs={runs}
          onChange={(id) => setPick((p) => ({ ...p, head: id }))}
        />
        <label class="cmp-num">
          Confidence
          <input
            type="number"
            min="0.51"
            max="0.999"
            step="0.01"
            value={confidence}
            onInput={(e) => setConfidence(e.currentTarget.value)}
            required
          />
        </label>
        <label class="cmp-num">
          Min effect
          <input
            type="number"
            min="0"
            step="any"
            value={minEffect}
            onInput={(e) => setMinEffect(e.currentTarget.value)}
            required
          />
        </label>
        <button type="submit" disabled={!pick.base || !pick.head}>
          Compare
        </button>
      </form>
      {listError && (
        <p role="alert" class="error">
          {listError}
        </p>
      )}
      {runs !== null && runs.length < 2 && (
        <p class="hint">Comparing needs two succeeded runs of this evaluator: start them from “New run”.</p>
      )}
      <p class="hint">
        Base is the run before the change, head the run with it; changes are head − base. Min effect is a noise floor in
        each metric's own units.
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {loading && !comparison && <p>Comparing…</p>}
      {comparison && <ComparisonView c={comparison} />}
    </section>
  );
}

function RunPicker({
  label,
  value,
  runs,
  onChange,
}: {
  label: string;
  value: string;
  runs: Run[] | null;
  onChange: (id: string) => void;
}) {
  // A linked run older than the listed ones is still offered, by its id.
  const listed = runs?.some((r) => r.id === value) ?? false;
  return (
    <label class="cmp-run">
      {label}
      <select value={value} onChange={(e) => onChange(e.currentTarget.value)} disabled={runs === null}>
        <option value="">{runs === null ? "loading…" : "choose a run"}</option>
        {value && !listed && <option value={value}>{value}</option>}
        {runs?.map((r) => (
          <option key={r.id} value={r.id}>
            {runLabel(r, evaluators.get(r.evaluator)?.runs?.summary(r) ?? r.evaluator)}
          </option>
        ))}
      </select>
    </label>
  );
}

const VERDICT_TEXT: Record<Comparison["verdict"], string> = {
  improved: "improved: at least one metric improved and none regressed",
  regressed: "regressed: at least one metric regressed",
  no_change: "no change: no metric's interval excludes 0 with a change of at least the min effect",
};

function ComparisonView({ c }: { c: Comparison }) {
  const own = evaluators.get(c.evaluator)?.runs?.compare;
  const plots = useMemo(
    () => forestGroups(c, (name) => own?.metricModel?.(c, name) ?? null).map((g) => ({ g, config: forestConfig(g) })),
    [c],
  );
  const details = own?.detailLines?.(c) ?? [];
  const Section = own?.Section;
  const directions = c.metrics.map((m): Direction => m.higher_is_better);
  const lower = directions.includes(false);
  const undirected = directions.includes(null);
  return (
    <div class="cmp-result" data-verdict={c.verdict}>
      <section aria-labelledby="cmp-verdict">
        <h2 id="cmp-verdict">Verdict</h2>
        <p class={`cmp-verdict v-${c.verdict}`} data-field="verdict" data-value={c.verdict}>
          {VERDICT_TEXT[c.verdict]}
        </p>
        <div class="cards">
          <div class="card">
            <div class="label">base</div>
            <div class="value cmp-id">
              <a href={href.run(c.base.id)}>{c.base.id}</a>
            </div>
          </div>
          <div class="card">
            <div class="label">head</div>
            <div class="value cmp-id">
              <a href={href.run(c.head.id)}>{c.head.id}</a>
            </div>
          </div>
          <div class="card">
            <div class="label">evaluator</div>
            <div class="value">{c.evaluator}</div>
          </div>
          <div class="card">
            <div class="label">items</div>
            <div class="value">{c.paired ? "paired" : "not paired"}</div>
          </div>
          <div class="card">
            <div class="label">confidence · min effect</div>
            <div class="value">
              {c.confidence} · {c.min_effect}
            </div>
          </div>
        </div>
        {details.length > 0 && (
          <ul class="cmp-details">
            {details.map((d) => (
              <li key={d}>{d}</li>
            ))}
          </ul>
        )}
      </section>

      <section aria-labelledby="cmp-forest">
        <h2 id="cmp-forest">Changes</h2>
        {plots.length === 0 && <p class="hint">No metric has a value in both runs.</p>}
        {plots.map(({ g, config }) => (
          <div key={g.title}>
            {plots.length > 1 && <h3>{g.title}</h3>}
            <ChartCanvas config={config} label={`forest plot: ${g.title}`} height={forestHeight(g.rows.length)} />
          </div>
        ))}
        <p class="hint">
          Each row is one metric: the point is its change (head − base), the bar its interval; green improved, red
          regressed, grey no change.{lower && " ↓ marks metrics where lower is better."}
          {undirected && " ↕ marks a change with no better direction: reported, never judged."} Metrics on larger scales
          than 0–1 get a plot of their own{plots.some((p) => p.g.model !== null) && ", and each model its own"}.
        </p>
      </section>

      <section aria-labelledby="cmp-metrics">
        <h2 id="cmp-metrics">Metrics</h2>
        <div class="table-wrap">
          <table class="cmp-metrics">
            <thead>
              <tr>
                <th scope="col">metric</th>
                <th scope="col" class="num">
                  base
                </th>
                <th scope="col" class="num">
                  head
                </th>
                <th scope="col" class="num">
                  change
                </th>
                <th scope="col" class="num">
                  interval
                </th>
                <th scope="col" class="num">
                  p
                </th>
                <th scope="col">verdict</th>
                <th scope="col">method</th>
              </tr>
            </thead>
            <tbody>
              {c.metrics.map((m) => (
                <tr key={m.name} data-metric={m.name}>
                  <th scope="row">{metricLabel(m)}</th>
                  <td class="num" data-field="base" data-label="base">
                    {figure(m.base)}
                  </td>
                  <td class="num" data-field="head" data-label="head">
                    {figure(m.head)}
                  </td>
                  <td class="num" data-field="delta" data-label="change">
                    {signed(m.delta)}
                  </td>
                  <td class="num" data-field="ci95" data-label="interval">
                    {intervalText(m.ci95)}
                  </td>
                  <td class="num" data-field="p_value" data-label="p">
                    {pText(m.p_value)}
                  </td>
                  <td class={`v-${m.verdict}`} data-field="verdict">
                    {m.verdict}
                  </td>
                  <td class="cmp-method" data-field="method">
                    {m.method}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>

      <section aria-labelledby="cmp-flipped">
        <h2 id="cmp-flipped">Flipped items ({c.flipped.length})</h2>
        {c.flipped.length === 0 ? (
          <p class="hint">No item changed its outcome.</p>
        ) : (
          <div class="table-wrap cmp-flipped">
            <table>
              <thead>
                <tr>
                  <th scope="col">item</th>
                  <th scope="col">base</th>
                  <th scope="col">head</th>
                </tr>
              </thead>
              <tbody>
                {c.flipped.map((f) => (
                  <tr key={f.id} data-item={f.id}>
                    <th scope="row">{f.id}</th>
                    <td>{f.base}</td>
                    <td>{f.head}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      {Section && <Section c={c} />}

      <details class="cmp-raw">
        <summary>All details (JSON)</summary>
        <pre class="raw">{JSON.stringify(c.details, null, 2)}</pre>
      </details>
    </div>
  );
}
