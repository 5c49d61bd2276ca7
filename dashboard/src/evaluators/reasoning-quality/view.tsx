// A reasoning-quality run: the reports to download, score cards under a chosen strategy, the radar of the
// six metrics, the model × strategy table with ranks, and the per-dataset breakdown.
import { useMemo, useState } from "preact/hooks";
import type { ReasoningQualityResult, ReasoningQualityRun, Run } from "@assay/sdk";
import { ChartCanvas } from "../../components/chart.tsx";
import {
  four,
  metricsOf,
  modelColor,
  notes,
  perDatasetChart,
  perDatasetRows,
  radarChart,
  reportLinks,
  scoreCards,
  strategyNames,
  strategyTable,
} from "./charts.ts";
import "./view.css";

export function ReasoningQualityView({ run }: { run: Run }) {
  const result = (run as ReasoningQualityRun).result;
  const strategies = useMemo(() => (result ? strategyNames(result) : []), [result]);
  const [strategy, setStrategy] = useState<string>(() => strategies[0] ?? "");
  if (!result) return <p>This run has no result.</p>;
  const chosen = strategies.includes(strategy) ? strategy : strategies[0];
  return (
    <div class="rq">
      <Reports runId={run.id} />
      <section aria-labelledby="rq-scores">
        <h2 id="rq-scores">Scores</h2>
        <div class="strategy-pick">
          <label for="rq-strategy">Strategy</label>
          <select id="rq-strategy" value={chosen} onChange={(e) => setStrategy(e.currentTarget.value)}>
            {strategies.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <ScoreCards result={result} strategy={chosen} />
      </section>
      <RadarSection result={result} />
      <StrategySection result={result} chosen={chosen} />
      <PerDatasetSection result={result} strategy={chosen} />
      <Notes result={result} />
    </div>
  );
}

function Reports({ runId }: { runId: string }) {
  return (
    <section aria-labelledby="rq-reports">
      <h2 id="rq-reports">Reports</h2>
      <ul class="downloads">
        {reportLinks(runId).map((l) => (
          <li key={l.key}>
            <a href={l.href} download={l.filename} data-report={l.key}>
              {l.label}
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}

function ScoreCards({ result, strategy }: { result: ReasoningQualityResult; strategy: string }) {
  return (
    <div class="cards">
      {scoreCards(result, strategy).map((c) => (
        <div class="card score-card" key={c.model} data-model={c.model} style={{ borderTopColor: c.color }}>
          <div class="label">{c.model}</div>
          <div class="value">Q {four(c.q)}</div>
          <div class="hint">
            <span data-col="rank">rank {c.rank ?? "—"}</span> · CQ {four(c.correctness)} · N {c.n}
          </div>
        </div>
      ))}
    </div>
  );
}

function RadarSection({ result }: { result: ReasoningQualityResult }) {
  const config = useMemo(() => radarChart(result), [result]);
  const metrics = metricsOf(result);
  return (
    <section aria-labelledby="rq-radar">
      <h2 id="rq-radar">Six metrics</h2>
      <div class="radar-layout">
        <ChartCanvas config={config} label="Radar of each model's six metrics" height={380} />
        <div class="table-wrap">
          <table data-table="metrics">
            <thead>
              <tr>
                <th scope="col">Model</th>
                {metrics.map((m) => (
                  <th scope="col" class="num" key={m.key} title={m.name}>
                    {m.abbr}
                  </th>
                ))}
                <th scope="col" class="num">
                  N
                </th>
              </tr>
            </thead>
            <tbody>
              {result.models.map((m, i) => (
                <tr key={m.model} data-model={m.model}>
                  <th scope="row">
                    <span class="swatch" style={{ background: modelColor(i) }} aria-hidden="true" />
                    {m.model}
                  </th>
                  {metrics.map((k) => (
                    <td class="num" key={k.key} data-metric={k.key}>
                      {four(m.raw_metrics[k.key])}
                    </td>
                  ))}
                  <td class="num" data-col="n">
                    {m.metadata.num_samples}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </div>
      <p class="hint">
        {metrics.map((m) => `${m.abbr} ${m.name.toLowerCase()}`).join(" · ")}; 0–1, higher is better, — where a metric
        was left out.
      </p>
    </section>
  );
}

function StrategySection({ result, chosen }: { result: ReasoningQualityResult; chosen: string }) {
  const { models, rows } = useMemo(() => strategyTable(result), [result]);
  const metrics = metricsOf(result);
  return (
    <section aria-labelledby="rq-strategies">
      <h2 id="rq-strategies">Q by strategy</h2>
      <p class="hint">
        The composite Q of each model under each weighting strategy, with its rank (ties share a rank).
      </p>
      <div class="table-wrap">
        <table data-table="strategies">
          <thead>
            <tr>
              <th scope="col">Strategy</th>
              {models.map((m) => (
                <th scope="col" class="num" key={m}>
                  {m}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr
                key={row.strategy}
                data-strategy={row.strategy}
                class={row.strategy === chosen ? "chosen" : undefined}
              >
                <th scope="row">{row.strategy}</th>
                {row.cells.map((c) => (
                  <td key={c.model} class={`num${c.best ? " best" : ""}`} data-model={c.model}>
                    <span data-col="q">{four(c.q)}</span>{" "}
                    <span class="rank" data-col="rank">
                      #{c.rank ?? "—"}
                    </span>
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <details class="weights">
        <summary>Weights of each strategy</summary>
        <div class="table-wrap">
          <table data-table="weights">
            <thead>
              <tr>
                <th scope="col">Strategy</th>
                {metrics.map((m) => (
                  <th scope="col" class="num" key={m.key} title={m.name}>
                    {m.abbr}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.strategy}>
                  <th scope="row">{row.strategy}</th>
                  {metrics.map((m) => (
                    <td class="num" key={m.key}>
                      {row.weights[m.key] === undefined ? "—" : Number(row.weights[m.key].toFixed(4))}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </section>
  );
}

function PerDatasetSection({ result, strategy }: { result: ReasoningQualityResult; strategy: string }) {
  const { datasets, rows } = useMemo(() => perDatasetRows(result, strategy), [result, strategy]);
  const config = useMemo(() => perDatasetChart(result, strategy), [result, strategy]);
  const metrics = metricsOf(result);
  return (
    <section aria-labelledby="rq-datasets">
      <h2 id="rq-datasets">Per dataset</h2>
      {datasets.length === 0 ? (
        <p class="hint" data-empty="per-dataset">
          This run has one dataset ({result.models[0]?.metadata.datasets.join(", ") || "none"}): its breakdown is the
          table above.
        </p>
      ) : (
        <>
          <div class="dataset-chart">
            <ChartCanvas config={config} label={`Q per dataset under ${strategy}`} height={280} />
          </div>
          <div class="table-wrap">
            <table data-table="per-dataset">
              <thead>
                <tr>
                  <th scope="col">Dataset</th>
                  <th scope="col">Model</th>
                  <th scope="col" class="num">
                    N
                  </th>
                  <th scope="col" class="num">
                    Q ({strategy})
                  </th>
                  {metrics.map((m) => (
                    <th scope="col" class="num" key={m.key} title={m.name}>
                      {m.abbr}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <tr key={`${r.dataset}/${r.model}`} data-dataset={r.dataset} data-model={r.model}>
                    <th scope="row">{r.dataset}</th>
                    <td>{r.model}</td>
                    <td class="num" data-col="n">
                      {r.n}
                    </td>
                    <td class="num q" data-col="q">
                      {four(r.q)}
                    </td>
                    {r.metrics.map((x, i) => (
                      <td class="num" key={metrics[i].key} data-metric={metrics[i].key}>
                        {four(x)}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}

function Notes({ result }: { result: ReasoningQualityResult }) {
  const list = notes(result);
  const first = result.models[0];
  return (
    <section aria-labelledby="rq-notes">
      <h2 id="rq-notes">How it was measured</h2>
      {first && (
        <p class="hint">
          N {first.metadata.num_samples} items, K {first.metadata.consistency_runs} runs, P{" "}
          {first.metadata.robustness_perturbations} perturbations; matcher {first.extensions.cq_matcher}, LS{" "}
          {first.extensions.ls_method}, SS {first.extensions.ss_method}, tokens counted by{" "}
          {first.extensions.token_count_method}, preset {first.extensions.preset_version}.
        </p>
      )}
      {list.length > 0 && (
        <ul class="notes">
          {list.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      )}
    </section>
  );
}
