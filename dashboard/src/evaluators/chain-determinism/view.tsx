// A chain-determinism run: the divergence rate with its Wilson interval, then per query how many
// distinct tool-call sequences its replays made (table and modal-share bars), the sequences of one
// query side by side with the turn where they fork, and the errors, which never count as divergence.
import { useMemo } from "preact/hooks";
import type { ChainDeterminismResult, ChainDeterminismSample, Run } from "@assay/sdk";
import { ChartCanvas } from "../../components/chart.tsx";
import { barHeight, divergenceConfig, errorSummary, modalShareConfig, pct, queryRows } from "./charts.ts";
import { useAllSamples } from "../../components/samples.ts";
import { SequenceView } from "./sequences.tsx";
import "./view.css";

export function ChainDeterminismView({ run }: { run: Run }) {
  if (run.evaluator !== "chain-determinism" || !run.result) return null;
  return <Result runId={run.id} result={run.result} minSuccess={run.config.min_success} />;
}

function Result({ runId, result, minSuccess }: { runId: string; result: ChainDeterminismResult; minSuccess: number }) {
  const { samples, loaded, error } = useAllSamples<ChainDeterminismSample>(runId);
  const divergence = useMemo(() => divergenceConfig(result), [result]);
  const modal = useMemo(() => modalShareConfig(result), [result]);
  const rows = queryRows(result);
  const measurable = rows.filter((r) => r.status === "measurable").length;
  const [lo, hi] = result.wilson_ci_95;
  return (
    <div class="cd-view">
      <section aria-labelledby="cd-divergence">
        <h2 id="cd-divergence">Divergence</h2>
        <div class="cards">
          <Card label="divergence rate" value={pct(result.divergence_rate)} field="divergence_rate" />
          <Card
            label="Wilson 95% CI"
            value={lo === null || hi === null ? "–" : `${pct(lo)} – ${pct(hi)}`}
            field="wilson_ci_95"
          />
          <Card label="diverged queries" value={`${result.n_diverged} / ${result.n_measurable}`} field="n_diverged" />
          <Card label="replays" value={String(result.n_total)} field="n_total" />
        </div>
        {divergence ? (
          <ChartCanvas config={divergence} label="divergence rate" height={90} />
        ) : (
          <p class="hint">Not measurable: no query reached {minSuccess} successful replays.</p>
        )}
        <p class="hint">
          A query diverges when its successful replays made more than one distinct tool-call sequence; the rate is
          diverged / measurable queries.
        </p>
      </section>

      <section aria-labelledby="cd-queries">
        <h2 id="cd-queries">Per query</h2>
        <div class="table-wrap">
          <table class="cd-queries">
            <thead>
              <tr>
                <th scope="col">query</th>
                <th scope="col">status</th>
                <th scope="col" class="num">
                  successful / replays
                </th>
                <th scope="col" class="num">
                  unique sequences
                </th>
                <th scope="col" class="num">
                  modal share
                </th>
                <th scope="col" class="num">
                  first divergence turn
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.query_id} data-query={r.query_id}>
                  <th scope="row">{r.query_id}</th>
                  <td
                    class={r.diverged ? "cd-diverged" : r.status === "insufficient" ? "cd-insufficient" : "cd-stable"}
                  >
                    {r.status === "insufficient" ? "insufficient" : r.diverged ? "diverged" : "stable"}
                  </td>
                  <td class="num">
                    {r.n_success} / {r.n_total}
                  </td>
                  <td class="num" data-field="n_unique_sequences">
                    {r.n_unique_sequences ?? "–"}
                  </td>
                  <td class="num" data-field="modal_share">
                    {pct(r.modal_share)}
                  </td>
                  <td class="num" data-field="first_divergence_turn">
                    {r.first_divergence_turn ?? "–"}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {measurable > 0 && <ChartCanvas config={modal} label="modal share per query" height={barHeight(measurable)} />}
      </section>

      <section aria-labelledby="cd-sequences">
        <h2 id="cd-sequences">Sequences</h2>
        {error ? (
          <p role="alert" class="error">
            {error}
          </p>
        ) : samples === null ? (
          <p>Loading replays… {loaded > 0 && `(${loaded})`}</p>
        ) : (
          <SequenceView result={result} samples={samples} />
        )}
      </section>

      <Errors result={result} samples={samples} minSuccess={minSuccess} />

      <section aria-labelledby="cd-endpoint">
        <h2 id="cd-endpoint">Endpoint</h2>
        <div class="cards">
          <Card label="HTTP requests" value={String(result.endpoint.requests)} field="endpoint.requests" />
          <Card
            label="tokens in / out"
            value={`${result.endpoint.usage.prompt_tokens.toLocaleString("en-US")} / ${result.endpoint.usage.completion_tokens.toLocaleString("en-US")}`}
            field="endpoint.usage"
          />
        </div>
        <Tally title="System fingerprints" counts={result.endpoint.system_fingerprints} />
        <details>
          <summary>The harness's summary</summary>
          <pre class="raw">{result.summary_text}</pre>
        </details>
      </section>
    </div>
  );
}

function Errors({
  result,
  samples,
  minSuccess,
}: {
  result: ChainDeterminismResult;
  samples: ChainDeterminismSample[] | null;
  minSuccess: number;
}) {
  const summary = useMemo(() => errorSummary(result, samples ?? []), [result, samples]);
  return (
    <section aria-labelledby="cd-errors">
      <h2 id="cd-errors">Errors</h2>
      <div class="cards">
        <Card label="error replays" value={String(summary.n_errors)} field="n_errors" />
        <Card label="insufficient cells" value={String(summary.insufficient.length)} field="insufficient" />
      </div>
      <p class="hint">
        Error replays never count as divergence; a query with fewer than {minSuccess} successful replays is insufficient
        and left out of the rate
        {summary.insufficient.length > 0 ? ` (${summary.insufficient.join(", ")})` : ""}.
      </p>
      {samples !== null && summary.categories.length > 0 && (
        <div class="table-wrap">
          <table class="cd-errors">
            <thead>
              <tr>
                <th scope="col">category (first example below)</th>
                <th scope="col" class="num">
                  replays
                </th>
              </tr>
            </thead>
            {summary.categories.map((c) => (
              <tbody key={c.category}>
                <tr data-category={c.category}>
                  <th scope="row">{c.category}</th>
                  <td class="num">{c.count}</td>
                </tr>
                <tr class="cd-example-row">
                  <td colSpan={2} class="cd-example">
                    {c.example}
                  </td>
                </tr>
              </tbody>
            ))}
          </table>
        </div>
      )}
    </section>
  );
}

function Card({ label, value, field }: { label: string; value: string; field: string }) {
  return (
    <div class="card" data-field={field}>
      <div class="label">{label}</div>
      <div class="value">{value}</div>
    </div>
  );
}

function Tally({ title, counts }: { title: string; counts: Record<string, number> }) {
  const entries = Object.entries(counts).sort((a, b) => b[1] - a[1]);
  if (entries.length === 0) return null;
  return (
    <p class="hint">
      {title}: {entries.map(([k, n]) => `${k} (${n})`).join(", ")}
    </p>
  );
}
