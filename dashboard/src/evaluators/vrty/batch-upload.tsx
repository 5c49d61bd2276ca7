// A batch of pairs from a JSONL file, scored by POST /v1/vrty/score/batch in requests of at most 1,000
// pairs, shown as the distribution of the composites: count, mean, min and max, a histogram, the
// lowest-scoring pairs, and what the API refused.
import { useMemo, useState } from "preact/hooks";
import { scoreVrtyBatch } from "@assay/sdk";
import { call, client } from "../../api.ts";
import { ChartCanvas } from "../../components/chart.tsx";
import { chunk, collect, parseJsonl, type Refused, type Scored } from "./batch.ts";
import { histogram, lowest, summarise } from "./histogram.ts";
import { histogramChart } from "./charts.ts";

type State =
  | { phase: "idle" }
  | {
      phase: "scoring" | "done" | "failed";
      file: string;
      total: number;
      requests: number;
      sent: number;
      scored: Scored[];
      refused: Refused[];
      error?: string;
    };

const LOWEST = 10;
const REFUSED_SHOWN = 20;

export function BatchUpload({ idfTable }: { idfTable: string }) {
  const [state, setState] = useState<State>({ phase: "idle" });

  const run = async (input: HTMLInputElement) => {
    const file = input.files?.[0];
    if (!file) return;
    const { pairs, errors } = parseJsonl(await file.text());
    const refused: Refused[] = errors.map((e) => ({ line: e.line, message: e.message }));
    const chunks = chunk(pairs);
    let s: Extract<State, { file: string }> = {
      phase: "scoring",
      file: file.name,
      total: pairs.length,
      requests: chunks.length,
      sent: 0,
      scored: [],
      refused,
    };
    setState(s);
    if (pairs.length === 0)
      return setState({
        ...s,
        phase: "failed",
        error: "The file has no pairs: one JSON object {prompt, response, id?} per line.",
      });
    for (const lines of chunks) {
      try {
        const answer = await call(
          scoreVrtyBatch({ client, body: { pairs: lines.map((l) => l.pair), idf_table: idfTable } }),
        );
        const got = collect(lines, answer.results);
        s = {
          ...s,
          sent: s.sent + lines.length,
          scored: [...s.scored, ...got.scored],
          refused: [...s.refused, ...got.refused],
        };
        setState(s);
      } catch (e) {
        return setState({
          ...s,
          phase: "failed",
          error: `Lines ${lines[0].line}–${lines[lines.length - 1].line}: ${(e as Error).message}`,
        });
      }
    }
    setState({ ...s, phase: "done", refused: [...s.refused].sort((a, b) => a.line - b.line) });
  };

  return (
    <section aria-labelledby="vrty-batch">
      <h2 id="vrty-batch">Score a batch</h2>
      <p class="hint">
        A JSONL file, one pair per line: <code>{'{"prompt": "…", "response": "…", "id": "optional"}'}</code>. It is sent
        in requests of at most 1,000 pairs.
      </p>
      <label class="vrty-file">
        Batch file (JSONL)
        <input
          type="file"
          accept=".jsonl,.ndjson,.json,.txt,application/x-ndjson"
          onChange={(e) => void run(e.currentTarget)}
          disabled={state.phase === "scoring"}
        />
      </label>
      {state.phase !== "idle" && <BatchResult state={state} />}
    </section>
  );
}

function BatchResult({ state }: { state: Extract<State, { file: string }> }) {
  const composites = useMemo(() => state.scored.map((s) => s.result.composite), [state.scored]);
  const bins = useMemo(() => histogram(composites), [composites]);
  const chart = useMemo(() => histogramChart(bins), [bins]);
  const summary = summarise(composites);
  const worst = useMemo(() => lowest(state.scored, (s) => s.result.composite, LOWEST), [state.scored]);
  const download = () => {
    const lines = state.scored.map((s) =>
      JSON.stringify({ line: s.line, ...(s.id === undefined ? {} : { id: s.id }), ...s.result }),
    );
    const url = URL.createObjectURL(new Blob([lines.join("\n") + "\n"], { type: "application/x-ndjson" }));
    const a = document.createElement("a");
    a.href = url;
    a.download = state.file.replace(/\.[^.]*$/, "") + ".scores.jsonl";
    a.click();
    URL.revokeObjectURL(url);
  };
  return (
    <div class="vrty-batch-result" data-phase={state.phase}>
      <p aria-live="polite" class="vrty-progress">
        {state.phase === "scoring"
          ? `Scoring ${state.file}: ${state.sent.toLocaleString("en")} of ${state.total.toLocaleString("en")} pairs sent (${state.requests} ${state.requests === 1 ? "request" : "requests"})…`
          : `${state.file}: ${state.total.toLocaleString("en")} pairs in ${state.requests} ${state.requests === 1 ? "request" : "requests"}.`}
      </p>
      {state.error && (
        <p role="alert" class="error">
          {state.error}
        </p>
      )}
      <div class="cards">
        <Card label="scored" value={String(composites.length)} name="count" />
        <Card label="refused" value={String(state.refused.length)} name="refused" />
        <Card label="mean composite" value={summary ? summary.mean.toFixed(4) : "–"} name="mean" raw={summary?.mean} />
        <Card label="min" value={summary ? summary.min.toFixed(4) : "–"} name="min" raw={summary?.min} />
        <Card label="max" value={summary ? summary.max.toFixed(4) : "–"} name="max" raw={summary?.max} />
      </div>
      {summary && (
        <>
          <h3>Distribution of composites</h3>
          <ChartCanvas config={chart} label="histogram of vrty composites" height={240} />
          <details class="vrty-bins">
            <summary>The histogram as a table</summary>
            <div class="table-wrap">
              <table data-histogram>
                <thead>
                  <tr>
                    <th scope="col">composite</th>
                    <th scope="col" class="num">
                      pairs
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {bins.map((b) => (
                    <tr key={b.label} data-bin={b.label}>
                      <td>{b.label}</td>
                      <td class="num count">{b.count}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </details>
          <h3>Lowest-scoring pairs</h3>
          <div class="table-wrap">
            <table class="vrty-lowest">
              <thead>
                <tr>
                  <th scope="col" class="num">
                    line
                  </th>
                  <th scope="col">id</th>
                  <th scope="col" class="num">
                    composite
                  </th>
                  <th scope="col" class="num dim" title="relevance">
                    rel.
                  </th>
                  <th scope="col" class="num dim" title="coherence">
                    coh.
                  </th>
                  <th scope="col" class="num dim" title="completeness">
                    compl.
                  </th>
                  <th scope="col" class="num dim" title="conciseness">
                    conc.
                  </th>
                  <th scope="col">prompt → response</th>
                </tr>
              </thead>
              <tbody>
                {worst.map((s) => (
                  <tr key={s.line} data-line={s.line}>
                    <td class="num">{s.line}</td>
                    <td>{s.id ?? ""}</td>
                    <td class="num composite" data-value={String(s.result.composite)}>
                      {s.result.composite.toFixed(4)}
                    </td>
                    <td class="num dim">{s.result.relevance.toFixed(3)}</td>
                    <td class="num dim">{s.result.coherence.toFixed(3)}</td>
                    <td class="num dim">{s.result.completeness.toFixed(3)}</td>
                    <td class="num dim">{s.result.conciseness.toFixed(3)}</td>
                    <td class="text">
                      <span class="prompt" title={s.prompt}>
                        {excerpt(s.prompt)}
                      </span>
                      <span class="response" title={s.response}>
                        {excerpt(s.response)}
                      </span>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {state.phase === "done" && (
            <p>
              <button type="button" class="secondary" onClick={download}>
                Download the scores (JSONL)
              </button>
            </p>
          )}
        </>
      )}
      {state.refused.length > 0 && (
        <>
          <h3>Refused lines</h3>
          <div class="table-wrap">
            <table class="vrty-refused">
              <thead>
                <tr>
                  <th scope="col" class="num">
                    line
                  </th>
                  <th scope="col">id</th>
                  <th scope="col">why</th>
                </tr>
              </thead>
              <tbody>
                {state.refused.slice(0, REFUSED_SHOWN).map((r) => (
                  <tr key={r.line} data-line={r.line}>
                    <td class="num">{r.line}</td>
                    <td>{r.id ?? ""}</td>
                    <td>{r.message}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {state.refused.length > REFUSED_SHOWN && <p class="hint">and {state.refused.length - REFUSED_SHOWN} more.</p>}
        </>
      )}
    </div>
  );
}

function Card({ label, value, name, raw }: { label: string; value: string; name: string; raw?: number }) {
  return (
    <div class="card" data-stat={name}>
      <div class="label">{label}</div>
      <div class="value" data-value={raw === undefined ? value : String(raw)}>
        {value}
      </div>
    </div>
  );
}

function excerpt(s: string, n = 80): string {
  const t = s.replace(/\s+/g, " ").trim();
  return t.length > n ? t.slice(0, n - 1) + "…" : t;
}
