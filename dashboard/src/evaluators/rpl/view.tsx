// An rpl run: the estimate (p and its CI in probability space, stability, compliance, cache hits),
// the per-template mean logits as a strip plot against the 20%-trimmed center and its bootstrap CI,
// the quality gates, and for `preset: auto` the controller's stages and decision log.
import { useMemo } from "preact/hooks";
import type { RplResult, RplSample, Run } from "@assay/sdk";
import { ChartCanvas } from "../../components/chart.tsx";
import {
  invalidReasons,
  logit3,
  pct,
  probabilityConfig,
  rplCards,
  sigmoid,
  templateLabel,
  templatePoints,
  templateStripConfig,
} from "./charts.ts";
import { useAllSamples } from "../../components/samples.ts";
import { AutoStages } from "./auto.tsx";
import "./view.css";

type RplRunT = Extract<Run, { evaluator: "rpl" }>;

export function RplView({ run }: { run: Run }) {
  if (run.evaluator !== "rpl" || !run.result) return null;
  return <Result run={run} result={run.result} />;
}

function Result({ run, result }: { run: RplRunT; result: RplResult }) {
  const { samples, error } = useAllSamples<RplSample>(run.id);
  const points = useMemo(() => templatePoints(result, samples ?? []), [result, samples]);
  const strip = useMemo(() => templateStripConfig(result, points), [result, points]);
  const probability = useMemo(() => probabilityConfig(result), [result]);
  const cards = rplCards(result);
  const d = result.diagnostics;
  const invalid = invalidReasons(result);
  return (
    <div class="rpl-view">
      <p class="rpl-claim">
        <span class="label">Claim</span> {result.claim}
      </p>
      <section aria-labelledby="rpl-estimate">
        <h2 id="rpl-estimate">Estimate</h2>
        <div class="cards">
          {cards.map((c) => (
            <div key={c.label} class={`card ${c.tone ? `rpl-${c.tone}` : ""}`} data-field={c.field}>
              <div class="label">{c.label}</div>
              <div class="value">{c.value}</div>
            </div>
          ))}
        </div>
        <ChartCanvas config={probability} label="prob_true with 95% CI" height={90} />
        <p class="hint">
          {result.model} under {result.sampling.K} template slots × {result.sampling.R} replicates (
          {result.prompt_version_name}); stability band {result.aggregates.stability_band} (
          {result.aggregates.is_stable ? "CI width within 0.20" : "CI wider than 0.20"}).
        </p>
      </section>

      <section aria-labelledby="rpl-templates">
        <h2 id="rpl-templates">Templates</h2>
        <ChartCanvas config={strip} label="template mean logits" height={340} />
        <p class="hint">
          Each large dot is a template's mean logit, the grey points its samples. The dashed line is the{" "}
          {Math.round(result.aggregation.trim * 100)}%-trimmed center ({logit3(d.ell_hat)}, p ={" "}
          {pct(sigmoid(d.ell_hat))}) and the band its clustered-bootstrap 95% CI ({logit3(d.ci_logit[0])} to{" "}
          {logit3(d.ci_logit[1])}, B = {result.aggregation.B}). Template IQR{" "}
          {logit3(result.aggregation.template_iqr_logit)}.
        </p>
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        <div class="table-wrap">
          <table class="rpl-templates">
            <thead>
              <tr>
                <th scope="col">template</th>
                <th scope="col" class="num">
                  samples
                </th>
                <th scope="col" class="num">
                  mean logit
                </th>
                <th scope="col" class="num">
                  p
                </th>
              </tr>
            </thead>
            <tbody>
              {points.map((p, i) => (
                <tr key={p.key} data-template={p.key}>
                  <th scope="row" title={p.key}>
                    {templateLabel(p, i)}
                  </th>
                  <td class="num">{p.count}</td>
                  <td class="num" data-field="mean">
                    {logit3(p.mean)}
                  </td>
                  <td class="num">{pct(sigmoid(p.mean))}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>

      <section aria-labelledby="rpl-quality">
        <h2 id="rpl-quality">Quality</h2>
        <ul class="rpl-gates">
          <Gate
            ok={result.quality.gate_compliance_ok}
            name="compliance"
            detail={`${pct(result.aggregates.rpl_compliance_rate)} of samples were valid JSON with a prob_true`}
          />
          <Gate
            ok={result.quality.gate_stability_ok}
            name="stability"
            detail={`score ${result.aggregates.stability_score.toFixed(3)}, IQR ${logit3(d.stability_iqr_logit)} logits`}
          />
          <Gate
            ok={result.quality.gate_precision_ok}
            name="precision"
            detail={`CI width ${pct(result.aggregates.ci_width)}`}
          />
        </ul>
        <p class="hint">
          {d.valid_count} valid of {d.attempted} attempted ({d.planned_units} planned); {d.cache_hits} from the cache.
          PQS {result.quality.pqs} ({result.quality.pqs_version}).
        </p>
        {invalid.length > 0 && (
          <div class="table-wrap">
            <table class="rpl-invalid">
              <thead>
                <tr>
                  <th scope="col">invalid reason</th>
                  <th scope="col" class="num">
                    samples
                  </th>
                </tr>
              </thead>
              <tbody>
                {invalid.map((r) => (
                  <tr key={r.reason}>
                    <th scope="row">{r.reason}</th>
                    <td class="num">{r.count}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      {run.config.preset === "auto" && <AutoStages run={run} />}
    </div>
  );
}

function Gate({ ok, name, detail }: { ok: 0 | 1; name: string; detail: string }) {
  return (
    <li class={ok ? "rpl-pass" : "rpl-fail"} data-gate={name}>
      <strong>{ok ? "pass" : "fail"}</strong> {name}: {detail}
    </li>
  );
}
