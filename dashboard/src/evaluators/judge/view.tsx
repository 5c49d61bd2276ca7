// A judge run: batch cards, the item × critic verdict grid coloured by label, per-critic agreement with
// the consensus, the pairwise alpha heat table, and the contested queue with every verdict's reasoning.
import { useEffect, useMemo, useState } from "preact/hooks";
import { listContestedItems, type ContestedItem, type JudgeRun, type JudgeResult, type Run } from "@assay/sdk";
import { call, client } from "../../api.ts";
import { ChartCanvas } from "../../components/chart.tsx";
import { allPages } from "@assay/sdk/pages";
import {
  batchCards,
  criticAgreementChart,
  fixed,
  gridLegend,
  heatColor,
  labelColors,
  pairwiseMatrix,
  percent,
  REASON_TEXT,
  SPECIAL,
  verdictClass,
  verdictGrid,
  type Swatch,
  type VerdictClass,
} from "./charts.ts";
import "./view.css";

export function JudgeView({ run }: { run: Run }) {
  const result = (run as JudgeRun).result;
  if (!result) return <p>This run has no result.</p>;
  return (
    <div class="judge">
      <section aria-labelledby="judge-batch">
        <h2 id="judge-batch">Batch</h2>
        <BatchCards result={result} />
      </section>
      <VerdictGridSection result={result} />
      <AgreementSection result={result} />
      <PairwiseSection result={result} />
      <ContestedSection runId={run.id} result={result} />
    </div>
  );
}

function BatchCards({ result }: { result: JudgeResult }) {
  return (
    <div class="cards">
      {batchCards(result).map((c) => (
        <div class="card" key={c.key} data-card={c.key}>
          <div class="label">{c.label}</div>
          <div class="value">{c.value}</div>
          {c.hint && <div class="hint">{c.hint}</div>}
        </div>
      ))}
      <div class="card" data-card="voting">
        <div class="label">Voting</div>
        <div class="value small">{result.voting}</div>
      </div>
    </div>
  );
}

function Chip({ text, swatch, cls, title }: { text: string; swatch: Swatch; cls: VerdictClass; title?: string }) {
  return (
    <span class={`verdict-chip ${cls}`} style={{ background: swatch.bg, color: swatch.fg }} title={title}>
      {text}
    </span>
  );
}

function VerdictGridSection({ result }: { result: JudgeResult }) {
  const grid = useMemo(() => verdictGrid(result), [result]);
  const legend = useMemo(() => gridLegend(grid, result.labels), [grid, result.labels]);
  return (
    <section aria-labelledby="judge-grid">
      <h2 id="judge-grid">Verdicts</h2>
      <p class="hint">
        Each item's verdict from each critic, coloured by label; ERROR and PARSE_FAIL are not votes. ⚑ marks a contested
        item.
      </p>
      <ul class="verdict-legend" aria-label="Legend">
        {legend.map((e) => (
          <li key={e.key} data-legend={e.key}>
            <Chip text={e.text} swatch={e.swatch} cls={e.cls} /> <span class="count">{e.count}</span>
          </li>
        ))}
      </ul>
      <div class="table-wrap verdict-grid-wrap">
        <table class="verdict-grid" data-table="verdicts">
          <caption class="visually-hidden">Verdicts: items by critics</caption>
          <thead>
            <tr>
              <th scope="col">Item</th>
              {grid.hasExpected && <th scope="col">Expected</th>}
              <th scope="col">Consensus</th>
              {grid.critics.map((c) => (
                <th scope="col" key={c} data-critic={c}>
                  {c}
                </th>
              ))}
              <th scope="col" class="num">
                Agreement
              </th>
              <th scope="col" class="num">
                Alpha
              </th>
            </tr>
          </thead>
          <tbody>
            {grid.rows.map((row) => (
              <tr key={row.id} data-item={row.id} class={row.contested ? "contested" : undefined}>
                <th scope="row">
                  {row.contested && (
                    <span class="flag" title="contested" role="img" aria-label="contested">
                      ⚑{" "}
                    </span>
                  )}
                  {row.id}
                </th>
                {grid.hasExpected && <td data-col="expected">{row.expected ?? "—"}</td>}
                <td
                  data-col="consensus"
                  class="cell"
                  style={{ background: row.consensusSwatch.bg, color: row.consensusSwatch.fg }}
                >
                  {row.consensus}
                </td>
                {row.cells.map((cell) => (
                  <td
                    key={cell.critic}
                    class={`cell ${cell.cls}`}
                    data-critic={cell.critic}
                    data-kind={cell.cls}
                    style={{ background: cell.swatch.bg, color: cell.swatch.fg }}
                    title={[
                      cell.critic,
                      cell.confidence !== null ? `confidence ${cell.confidence}` : "",
                      cell.error ?? "",
                    ]
                      .filter(Boolean)
                      .join(" · ")}
                  >
                    {cell.text}
                  </td>
                ))}
                <td class="num" data-col="agreement">
                  {percent(row.agreement)}
                </td>
                <td class="num" data-col="alpha">
                  {fixed(row.alpha)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function AgreementSection({ result }: { result: JudgeResult }) {
  const config = useMemo(() => criticAgreementChart(result), [result]);
  const rows = result.batch.per_critic;
  return (
    <section aria-labelledby="judge-agreement">
      <h2 id="judge-agreement">Agreement with the consensus</h2>
      <ChartCanvas
        config={config}
        label="Per-critic agreement with the consensus"
        height={Math.max(140, 40 + rows.length * 36)}
      />
      <div class="table-wrap">
        <table data-table="per-critic">
          <thead>
            <tr>
              <th scope="col">Critic</th>
              <th scope="col" class="num">
                Agree
              </th>
              <th scope="col" class="num">
                Items
              </th>
              <th scope="col" class="num">
                Rate
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.critic} data-critic={r.critic}>
                <th scope="row">{r.critic}</th>
                <td class="num" data-col="agree">
                  {r.agree}
                </td>
                <td class="num" data-col="items">
                  {r.items}
                </td>
                <td class="num" data-col="rate">
                  {fixed(r.rate)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function PairwiseSection({ result }: { result: JudgeResult }) {
  const { critics, cells } = useMemo(() => pairwiseMatrix(result), [result]);
  return (
    <section aria-labelledby="judge-pairwise">
      <h2 id="judge-pairwise">Pairwise alpha</h2>
      <p class="hint">
        Krippendorff's nominal alpha of each pair of critics (blue near 1, red below 0), with their raw agreement.
      </p>
      <div class="table-wrap">
        <table class="heat" data-table="pairwise">
          <thead>
            <tr>
              <th scope="col">
                <span class="visually-hidden">Critic</span>
              </th>
              {critics.map((c) => (
                <th scope="col" key={c}>
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {critics.map((a, i) => (
              <tr key={a} data-critic={a}>
                <th scope="row">{a}</th>
                {cells[i].map((cell, j) => {
                  if (!cell)
                    return (
                      <td key={critics[j]} class="diag" data-critic={critics[j]}>
                        —
                      </td>
                    );
                  const color = heatColor(cell.alpha);
                  return (
                    <td
                      key={critics[j]}
                      data-critic={critics[j]}
                      data-alpha={cell.alpha ?? ""}
                      style={{ background: color.bg, color: color.fg }}
                      title={`${a} × ${critics[j]}: alpha ${fixed(cell.alpha)}, ${cell.agree} of ${cell.items} items agree`}
                    >
                      <span class="alpha">{fixed(cell.alpha)}</span>
                      <span class="agree">
                        {cell.agree}/{cell.items}
                      </span>
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function ContestedSection({ runId, result }: { runId: string; result: JudgeResult }) {
  const [threshold, setThreshold] = useState(result.contested.threshold);
  const [draft, setDraft] = useState(String(result.contested.threshold));
  const [items, setItems] = useState<ContestedItem[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const colors = useMemo(() => labelColors(result.labels), [result.labels]);
  useEffect(() => {
    setItems(null);
    setError(null);
    allPages((after) =>
      call(listContestedItems({ client, path: { run_id: runId }, query: { threshold, limit: 100, after } })),
    ).then(setItems, (e: Error) => setError(e.message));
  }, [runId, threshold]);
  const apply = (e: Event) => {
    e.preventDefault();
    const t = Number(draft);
    if (draft.trim() !== "" && t >= 0 && t <= 1) setThreshold(t);
  };
  return (
    <section aria-labelledby="judge-contested" class="contested-queue">
      <h2 id="judge-contested">
        Contested items
        {items && (
          <span class="count" data-count={items.length}>
            {" "}
            ({items.length})
          </span>
        )}
      </h2>
      <form class="threshold" onSubmit={apply}>
        <label>
          Review threshold
          <input
            type="number"
            min={0}
            max={1}
            step={0.05}
            value={draft}
            onInput={(e) => setDraft(e.currentTarget.value)}
          />
        </label>
        <button type="submit" class="small">
          Apply
        </button>
      </form>
      <p class="hint">
        Items whose agreement or alpha is below the threshold, or with fewer than two valid verdicts, for a person to
        review.
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {items === null && !error && <p>Loading…</p>}
      {items?.length === 0 && <p>No item is contested at this threshold.</p>}
      {items?.map((item) => (
        <article key={item.id} class="contested-item" data-item={item.id}>
          <h3>
            {item.id} <span class="muted">consensus</span>{" "}
            <Chip
              text={item.consensus}
              swatch={colors.get(item.consensus) ?? { bg: "#fff", fg: "#1d2330" }}
              cls="valid"
            />
          </h3>
          <p class="facts">
            agreement <b data-col="agreement">{percent(item.agreement_pct)}</b> · alpha{" "}
            <b data-col="alpha">{fixed(item.krippendorff_alpha)}</b> ·{" "}
            {item.reasons.map((r) => REASON_TEXT[r]).join("; ")}
          </p>
          {item.query !== null && <blockquote class="query">{item.query}</blockquote>}
          <ul class="verdicts">
            {item.verdicts.map((v) => {
              const cls = verdictClass(v);
              const swatch = cls === "valid" ? (colors.get(v.kind) ?? { bg: "#fff", fg: "#1d2330" }) : SPECIAL[cls];
              return (
                <li key={v.critic_id} data-critic={v.critic_id}>
                  <div class="verdict-head">
                    <Chip
                      text={cls === "valid" || cls === "off_vocabulary" ? v.kind : SPECIAL[cls].text}
                      swatch={swatch}
                      cls={cls}
                    />
                    <b>{v.critic_id}</b>
                    <span class="muted">confidence {v.confidence}</span>
                    <span class="muted">
                      {v.prompt.name}
                      {v.prompt.version !== null ? `@${v.prompt.version}` : ""}
                    </span>
                  </div>
                  {v.reasoning && (
                    <p class="reasoning" data-col="reasoning">
                      {v.reasoning}
                    </p>
                  )}
                  {v.error && v.error !== v.reasoning && <p class="error verdict-error">{v.error}</p>}
                </li>
              );
            })}
          </ul>
        </article>
      ))}
    </section>
  );
}
