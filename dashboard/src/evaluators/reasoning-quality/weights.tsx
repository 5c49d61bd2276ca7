// Step 3 of the reasoning-quality form: how the six metrics are combined into Q. The API always scores
// the strategies of a preset table; a custom strategy (one slider per metric, normalised to 1 as you
// move them) is scored beside them.
import { NumberInput } from "./number-input.tsx";
import { METRICS, normaliseWeights, PRESETS, type PresetName, type Weights } from "./request.ts";

export type WeightsState = { preset: PresetName; custom: boolean; name: string; weights: Weights };

export function WeightsStep({ value, onChange }: { value: WeightsState; onChange: (v: WeightsState) => void }) {
  const { preset, custom, name, weights } = value;
  const normalised = normaliseWeights(weights);
  const table = PRESETS[preset].strategies;
  const set = (patch: Partial<WeightsState>) => onChange({ ...value, ...patch });
  return (
    <section class="rq-step" aria-labelledby="rq-weights">
      <h2 id="rq-weights">3. Aggregation strategy</h2>
      <div>
        <label class="rq-preset-pick">
          Preset
          <select value={preset} onChange={(e) => set({ preset: e.currentTarget.value as PresetName })}>
            {(Object.keys(PRESETS) as PresetName[]).map((p) => (
              <option key={p} value={p}>
                {PRESETS[p].title}
              </option>
            ))}
          </select>
        </label>
      </div>
      <details class="rq-preset">
        <summary>The preset's strategies ({Object.keys(table).length})</summary>
        <div class="table-wrap">
          <table>
            <caption class="hint">Weights of {preset}; each row is normalised to sum 1 when Q is computed.</caption>
            <thead>
              <tr>
                <th scope="col">Strategy</th>
                {METRICS.map((m) => (
                  <th key={m.key} scope="col" class="num" title={m.label}>
                    {m.short}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {Object.entries(table).map(([s, w]) => (
                <tr key={s}>
                  <th scope="row">{s}</th>
                  {METRICS.map((m) => (
                    <td key={m.key} class="num">
                      {fmt(w[m.key], 3)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
      <div class="rq-choices" role="radiogroup" aria-label="Strategies">
        <label class="check">
          <input type="radio" name="rq-weights" checked={!custom} onChange={() => set({ custom: false })} />
          The preset's strategies only
        </label>
        <label class="check">
          <input type="radio" name="rq-weights" checked={custom} onChange={() => set({ custom: true })} />
          Custom weights (scored beside the preset's)
        </label>
      </div>
      {custom && (
        <div class="rq-custom">
          <div class="rq-grid">
            <label>
              Strategy name
              <input type="text" maxLength={50} value={name} onInput={(e) => set({ name: e.currentTarget.value })} />
            </label>
            <label>
              Start from
              <select
                value=""
                onChange={(e) => {
                  const from = table[e.currentTarget.value];
                  if (from) set({ weights: { ...from } });
                }}
              >
                <option value="">a preset strategy…</option>
                {Object.keys(table).map((s) => (
                  <option key={s} value={s}>
                    {s}
                  </option>
                ))}
              </select>
            </label>
          </div>
          <table class="rq-sliders">
            <caption class="hint">
              Move a slider or type a weight; the weights used are each over their sum, so they add up to 1.
            </caption>
            <thead>
              <tr>
                <th scope="col">Metric</th>
                <th scope="col">Weight</th>
                <th scope="col" class="num">
                  Normalised
                </th>
              </tr>
            </thead>
            <tbody>
              {METRICS.map((m) => {
                const share = normalised?.[m.key] ?? 0;
                const setWeight = (v: number) =>
                  Number.isFinite(v) && v >= 0 && set({ weights: { ...weights, [m.key]: v } });
                return (
                  <tr key={m.key}>
                    <th scope="row">
                      {m.label} <span class="hint">{m.short}</span>
                    </th>
                    <td class="rq-slider">
                      <input
                        type="range"
                        min={0}
                        max={1}
                        step={0.05}
                        value={Math.min(1, weights[m.key])}
                        aria-label={`${m.label} weight slider`}
                        onInput={(e) => setWeight(e.currentTarget.valueAsNumber)}
                      />
                      <NumberInput
                        min={0}
                        step={0.05}
                        value={weights[m.key]}
                        aria-label={`${m.label} weight`}
                        onValue={(n) => n !== null && setWeight(n)}
                      />
                    </td>
                    <td class="num">
                      <output data-metric={m.key} data-value={normalised ? String(share) : ""}>
                        {normalised ? fmt(share, 3) : "–"}
                      </output>
                      <span class="rq-share" aria-hidden="true">
                        <span style={{ width: `${(share * 100).toFixed(1)}%` }} />
                      </span>
                    </td>
                  </tr>
                );
              })}
            </tbody>
            <tfoot>
              <tr>
                <th scope="row">Sum</th>
                <td class="num">
                  {fmt(
                    METRICS.reduce((s, m) => s + weights[m.key], 0),
                    3,
                  )}
                </td>
                <td class="num">{normalised ? "1.000" : "–"}</td>
              </tr>
            </tfoot>
          </table>
          {!normalised && (
            <p role="alert" class="error">
              Give at least one metric a weight above 0.
            </p>
          )}
        </div>
      )}
    </section>
  );
}

function fmt(x: number, digits: number): string {
  return x.toFixed(digits);
}
