// Step 2 of the reasoning-quality form: tick the models. Simulator reasoners (no key, no network: their
// accuracy, verbosity and variation shape the answers) or a model behind a saved provider connection.
import { useConnections } from "../../components/fields.tsx";
import { NumberInput } from "./number-input.tsx";
import type { ModelRow } from "./request.ts";

type Props = { models: ModelRow[]; onChange: (models: ModelRow[]) => void };

export function ModelsStep({ models, onChange }: Props) {
  const { connections, error } = useConnections();

  const nextKey = () => Math.max(0, ...models.map((m) => m.key)) + 1;
  const freeName = (base: string) => {
    const taken = new Set(models.map((m) => m.name));
    for (let i = 1; ; i++) if (!taken.has(`${base}-${i}`)) return `${base}-${i}`;
  };
  const update = (key: number, patch: Partial<ModelRow>) =>
    onChange(models.map((m) => (m.key === key ? ({ ...m, ...patch } as ModelRow) : m)));
  const remove = (key: number) => onChange(models.filter((m) => m.key !== key));
  const addSim = () =>
    onChange([
      ...models,
      {
        key: nextKey(),
        enabled: true,
        name: freeName("sim"),
        kind: "sim",
        accuracy: 0.7,
        verbosity: 3,
        variation: 0.2,
      },
    ]);
  const addConnection = () =>
    onChange([
      ...models,
      {
        key: nextKey(),
        enabled: true,
        name: freeName("model"),
        kind: "connection",
        connection: connections?.[0]?.name ?? "",
        model: "",
        temperature: 0.7,
      },
    ]);

  return (
    <section class="rq-step" aria-labelledby="rq-models">
      <h2 id="rq-models">2. Models</h2>
      <div class="rq-models">
        {models.map((m, i) => (
          <fieldset key={m.key} class={`rq-model${m.enabled ? " on" : ""}`} data-model={m.name}>
            <legend>
              <label class="check">
                <input
                  type="checkbox"
                  checked={m.enabled}
                  onChange={(e) => update(m.key, { enabled: e.currentTarget.checked })}
                  aria-label={`Use ${m.name || `model ${i + 1}`}`}
                />
                {m.kind === "sim" ? "Simulator reasoner" : "Saved connection"}
              </label>
            </legend>
            <label>
              Name
              <input
                type="text"
                maxLength={100}
                value={m.name}
                aria-label={`Name of model ${i + 1}`}
                onInput={(e) => update(m.key, { name: e.currentTarget.value })}
              />
            </label>
            {m.kind === "sim" ? (
              <>
                <label>
                  <span>
                    Accuracy <output>{m.accuracy.toFixed(2)}</output>
                  </span>
                  <input
                    type="range"
                    min={0}
                    max={1}
                    step={0.05}
                    value={m.accuracy}
                    aria-label={`Accuracy of ${m.name || `model ${i + 1}`}`}
                    onInput={(e) => update(m.key, { accuracy: e.currentTarget.valueAsNumber })}
                  />
                </label>
                <div class="rq-pair">
                  <label>
                    Verbosity
                    <NumberInput
                      min={0}
                      max={50}
                      step={1}
                      value={m.verbosity}
                      onValue={(n) => n !== null && update(m.key, { verbosity: n })}
                    />
                  </label>
                  <label>
                    Variation
                    <NumberInput
                      min={0}
                      max={1}
                      step={0.05}
                      value={m.variation}
                      onValue={(n) => n !== null && update(m.key, { variation: n })}
                    />
                  </label>
                </div>
              </>
            ) : (
              <>
                <label>
                  Connection
                  <select value={m.connection} onChange={(e) => update(m.key, { connection: e.currentTarget.value })}>
                    {(connections ?? []).map((c) => (
                      <option key={c.id} value={c.name}>
                        {c.name} ({c.base_url})
                      </option>
                    ))}
                  </select>
                </label>
                <label>
                  Model at that endpoint
                  <input
                    type="text"
                    maxLength={200}
                    value={m.model}
                    placeholder="gpt-4o-mini"
                    onInput={(e) => update(m.key, { model: e.currentTarget.value })}
                  />
                </label>
                <label>
                  Temperature
                  <NumberInput
                    min={0}
                    max={2}
                    step={0.1}
                    value={m.temperature}
                    onValue={(n) => n !== null && update(m.key, { temperature: n })}
                  />
                </label>
              </>
            )}
            {i >= 3 && (
              <button type="button" class="link" onClick={() => remove(m.key)}>
                Remove
              </button>
            )}
          </fieldset>
        ))}
      </div>
      <p class="rq-actions">
        <button type="button" class="secondary" onClick={addSim}>
          Add a simulator reasoner
        </button>
        <button type="button" class="secondary" onClick={addConnection} disabled={!connections?.length}>
          Add a model from a saved connection
        </button>
      </p>
      {connections && connections.length === 0 && (
        <p class="hint">
          To evaluate a real model, save its endpoint and key once under <a href="#/connections">Connections</a>; the
          key is never shown again.
        </p>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </section>
  );
}
