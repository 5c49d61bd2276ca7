// Auto-RPL: a `preset: auto` run is one stage of the controller; each stage's result names the next
// stage's run. This follows that chain from the open run and shows the latest controller state: every
// stage against the gates, the decision log, and the final figures once the controller stopped.
import { useEffect, useMemo, useState } from "preact/hooks";
import { getRun, type RplAuto, type Run } from "@assay/sdk";
import { call, client } from "../../api.ts";
import { href } from "../../route.ts";
import { ChartCanvas } from "../../components/chart.tsx";
import { failingGates, pct, stagesConfig } from "./charts.ts";

type RplRunT = Extract<Run, { evaluator: "rpl" }>;

/** This run and the later stages it leads to (each stage's `result.next_run_id`), fetched in turn. */
function useStageChain(run: RplRunT): { chain: RplRunT[]; error: string | null } {
  const [chain, setChain] = useState<RplRunT[]>([run]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    setChain([run]);
    (async () => {
      const out = [run];
      // Three stages at most (S1–S3); the bound only guards against a cycle in bad data.
      for (let next = run.result?.next_run_id; next && out.length < 8; ) {
        const r = await call(getRun({ client, path: { run_id: next } }));
        if (!live || r.evaluator !== "rpl") return;
        out.push(r);
        setChain([...out]);
        next = r.status === "succeeded" ? r.result?.next_run_id : undefined;
      }
    })().catch((e: Error) => live && setError(e.message));
    return () => {
      live = false;
    };
  }, [run.id]);
  return { chain, error };
}

export function AutoStages({ run }: { run: RplRunT }) {
  const { chain, error } = useStageChain(run);
  // The latest controller state: the last stage in the chain that has a result.
  const latest = [...chain].reverse().find((r) => r.result?.auto);
  const auto = latest?.result?.auto;
  const last = chain[chain.length - 1];
  const runOfStage = new Map(chain.map((r) => [r.config.stage ?? 0, r]));
  return (
    <section aria-labelledby="rpl-auto" class="rpl-auto">
      <h2 id="rpl-auto">Auto-RPL stages</h2>
      <p class="hint" data-chain={chain.map((r) => r.id).join(" ")}>
        This run is stage {run.config.stage ?? "?"} of an Auto-RPL run
        {chain.length > 1 && (
          <>
            ; the controller went on to <a href={href.run(last.id)}>stage {last.config.stage ?? chain.length}</a> (
            {last.status})
          </>
        )}
        .
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {auto && <AutoDetail auto={auto} runOfStage={runOfStage} currentId={run.id} />}
    </section>
  );
}

function AutoDetail({
  auto,
  runOfStage,
  currentId,
}: {
  auto: RplAuto;
  runOfStage: Map<number, RplRunT>;
  currentId: string;
}) {
  const config = useMemo(() => stagesConfig(auto), [auto]);
  const { gates, start, ceilings, policy } = auto.controller;
  return (
    <>
      <p class="hint">
        Policy {policy}: from (T, K, R) = ({start.T}, {start.K}, {start.R}) up to ({ceilings.T}, {ceilings.K},{" "}
        {ceilings.R}), escalating while a gate fails: CI width ≤ {gates.ci_width_max}, stability ≥ {gates.stability_min}
        , imbalance ≤ {gates.imbalance_max}.
      </p>
      {auto.final && (
        <div class="cards" data-final>
          <div class="card">
            <div class="label">final decision</div>
            <div class="value rpl-small">{auto.final.decision}</div>
          </div>
          <div class="card">
            <div class="label">final prob_true</div>
            <div class="value">{pct(auto.final.prob_true_rpl)}</div>
          </div>
          <div class="card">
            <div class="label">final 95% CI</div>
            <div class="value">
              {pct(auto.final.ci95[0])} – {pct(auto.final.ci95[1])}
            </div>
          </div>
          <div class="card">
            <div class="label">reason</div>
            <div class="value rpl-small">{auto.final.reason}</div>
          </div>
        </div>
      )}
      <ChartCanvas config={config} label="auto stages" height={240} />
      <div class="table-wrap">
        <table class="rpl-stages">
          <thead>
            <tr>
              <th scope="col">stage</th>
              <th scope="col" class="num">
                T · K · R
              </th>
              <th scope="col" class="num">
                prob_true
              </th>
              <th scope="col" class="num">
                95% CI
              </th>
              <th scope="col" class="num">
                CI width
              </th>
              <th scope="col" class="num">
                stability
              </th>
              <th scope="col" class="num">
                imbalance
              </th>
              <th scope="col" class="num">
                cache hits
              </th>
              <th scope="col">decision</th>
            </tr>
          </thead>
          <tbody>
            {auto.stages.map((s, i) => {
              const r = runOfStage.get(i + 1);
              const failing = failingGates(s, gates);
              return (
                <tr key={s.stage_id} data-stage={s.stage_id}>
                  <th scope="row">
                    {r && r.id !== currentId ? <a href={href.run(r.id)}>{s.stage_id}</a> : s.stage_id}
                  </th>
                  <td class="num">
                    {s.T} · {s.K} · {s.R}
                  </td>
                  <td class="num">{pct(s.prob_true_rpl)}</td>
                  <td class="num">
                    {pct(s.ci95[0])} – {pct(s.ci95[1])}
                  </td>
                  <td class={`num ${failing.includes("ci_width") ? "rpl-fail" : ""}`}>{pct(s.ci_width)}</td>
                  <td class={`num ${failing.includes("stability") ? "rpl-fail" : ""}`}>
                    {s.stability_score.toFixed(3)}
                  </td>
                  <td class={`num ${failing.includes("imbalance") ? "rpl-fail" : ""}`}>
                    {s.imbalance_ratio.toFixed(2)}
                  </td>
                  <td class="num">{pct(s.cache_hit_rate)}</td>
                  <td>
                    <code>{s.decision}</code>
                    {s.warnings.length > 0 && <span class="hint"> ({s.warnings.join("; ")})</span>}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <h3>Decision log</h3>
      <ol class="rpl-log">
        {auto.decision_log.map((d) => (
          <li key={d.stage_id + d.decision} data-decision={d.decision}>
            <code>{d.stage_id}</code>: <strong>{d.decision}</strong> — {d.reason}
          </li>
        ))}
      </ol>
    </>
  );
}
