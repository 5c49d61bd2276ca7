// The distinct tool-call sequences of one query side by side: one column per sequence (the most common
// first, with how many replays made it), one row per turn, the first turn where they part marked, and
// each call that departs from the most common sequence highlighted.
import { useMemo, useState } from "preact/hooks";
import type { ChainDeterminismResult, ChainDeterminismSample } from "@assay/sdk";
import { defaultQuery, differsFromModal, pct, sequenceView } from "./charts.ts";

const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const letter = (i: number) => (i < LETTERS.length ? LETTERS[i] : `#${i + 1}`);

function replayList(replays: number[]): string {
  const head = replays.slice(0, 12).join(", ");
  return replays.length > 12 ? `${head}, … (${replays.length})` : head;
}

export function SequenceView({
  result,
  samples,
}: {
  result: ChainDeterminismResult;
  samples: ChainDeterminismSample[];
}) {
  const [queryId, setQueryId] = useState(() => defaultQuery(result) ?? "");
  const view = useMemo(() => sequenceView(samples, queryId), [samples, queryId]);
  const q = result.per_query.find((p) => p.query_id === queryId);
  const rows = Array.from({ length: view.turns }, (_, i) => i);
  return (
    <div class="cd-sequences">
      <div class="cd-query">
        <label for="cd-query-select">Query</label>
        <select id="cd-query-select" value={queryId} onChange={(e) => setQueryId(e.currentTarget.value)}>
          {result.per_query.map((p) => (
            <option key={p.query_id} value={p.query_id}>
              {p.query_id} —{" "}
              {p.status === "insufficient"
                ? "insufficient"
                : `${p.n_unique_sequences} sequence${p.n_unique_sequences === 1 ? "" : "s"}${p.diverged ? ", diverged" : ""}`}
            </option>
          ))}
        </select>
      </div>
      <p class="hint" data-summary>
        {view.groups.length} distinct sequence{view.groups.length === 1 ? "" : "s"} over {view.n_success} successful
        replay{view.n_success === 1 ? "" : "s"}
        {view.n_errors > 0 && `, ${view.n_errors} error replay${view.n_errors === 1 ? "" : "s"} left out`}
        {view.fork !== null ? `; they first part at turn ${view.fork} (turns count tool calls from 0).` : "."}
        {q?.status === "measurable" &&
          q.n_unique_sequences !== undefined &&
          q.n_unique_sequences !== view.groups.length &&
          ` The result counts ${q.n_unique_sequences}: the server tells apart numbers a browser reads as equal (1 and 1.0).`}
        {q?.status === "insufficient" && " This query had too few successful replays to be measured."}
      </p>
      {view.groups.length > 0 && (
        <div class="table-wrap">
          <table class="cd-seq-table" aria-label={`Tool-call sequences of ${queryId}`} data-query={queryId}>
            <thead>
              <tr>
                <th scope="col" class="num">
                  turn
                </th>
                {view.groups.map((g, i) => (
                  <th scope="col" key={g.key} data-sequence={letter(i)} data-count={g.count}>
                    Sequence {letter(i)}
                    <span class="cd-seq-count">
                      {g.count} replay{g.count === 1 ? "" : "s"} · {pct(g.count / view.n_success)}
                    </span>
                    <span class="cd-seq-replays" title={`replays ${g.replays.join(", ")}`}>
                      replays {replayList(g.replays)}
                    </span>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((i) => (
                <tr key={i} class={i === view.fork ? "fork" : undefined} data-turn={i}>
                  <th scope="row" class="num">
                    {i}
                    {i === view.fork && <span class="cd-fork-mark">first divergence</span>}
                  </th>
                  {view.groups.map((g, gi) => {
                    const call = g.calls[i];
                    const differs = differsFromModal(view, gi, i);
                    return (
                      <td key={g.key} class={differs ? "differs" : undefined}>
                        {call ? (
                          <>
                            <code class="cd-call">{call.name}</code>
                            {call.args && (
                              <span class="cd-args" title={call.args}>
                                {call.args}
                              </span>
                            )}
                          </>
                        ) : (
                          <span class="cd-ended">{i === g.calls.length ? "(ended)" : ""}</span>
                        )}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
