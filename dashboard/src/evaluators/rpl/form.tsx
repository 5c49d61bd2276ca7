// New rpl run: a claim and the fields of POST /v1/rpl/runs with its defaults. Several prompt versions
// make an A/B group (one run per version), listed here live; one run opens its page.
import { useState } from "preact/hooks";
import { createRplRun } from "@assay/sdk";
import { call, client } from "../../api.ts";
import { isSimulated, list, num } from "../../components/request.ts";
import { RPL_DEFAULTS, rplRequest, type RplFormState } from "./request.ts";
import {
  CheckField,
  FieldGrid,
  ModelFields,
  More,
  NumberField,
  plural,
  SelectField,
  SubmitBar,
  TextField,
  useConnections,
  useStartRun,
} from "../../components/fields.tsx";

export function RplForm() {
  const [f, setF] = useState<RplFormState>(RPL_DEFAULTS);
  const set = (patch: Partial<RplFormState>) => setF((cur) => ({ ...cur, ...patch }));
  const { connections } = useConnections();
  const run = useStartRun();
  const auto = f.preset === "auto";

  const submit = (e: Event) => {
    e.preventDefault();
    void run.start(() => call(createRplRun({ client, body: rplRequest(f) })));
  };

  const K = num(f.K);
  const R = num(f.R);
  const versions = Math.max(1, list(f.prompt_versions).length);
  const calls = !auto && typeof K === "number" && typeof R === "number" ? K * R * versions : null;

  return (
    <form class="run-form" onSubmit={submit} aria-labelledby="new-run-title">
      <h1 id="new-run-title">New rpl run</h1>
      <p class="hint">
        Estimates a model's prior that a claim is true, over K paraphrase slots × R replicates, with a bootstrap CI.
      </p>

      <TextField
        class="claim"
        label="Claim"
        multiline
        value={f.claim}
        onInput={(v) => set({ claim: v })}
        required
        placeholder="Tariffs raise consumer prices."
        hint="the statement whose prior the model gives, without retrieval"
      />

      <fieldset>
        <legend>Model</legend>
        <FieldGrid>
          <ModelFields wide value={f.model} onChange={(model) => set({ model })} connections={connections} />
        </FieldGrid>
      </fieldset>

      <fieldset>
        <legend>Sampling</legend>
        <FieldGrid>
          <TextField
            label="Prompt version(s)"
            value={f.prompt_versions}
            onInput={(v) => set({ prompt_versions: v })}
            hint="several, comma-separated: an A/B group, one run each"
          />
          <SelectField
            label="Preset"
            value={f.preset}
            onChange={(v) => set({ preset: v as RplFormState["preset"] })}
            hint={auto ? "S1 (8, 8, 2) → S2 (16, 16, 2) → S3 (16, 16, 3)" : undefined}
          >
            <option value="">none</option>
            <option value="auto">auto (stages until the gates pass)</option>
          </SelectField>
          <NumberField
            label="K (paraphrase slots)"
            value={f.K}
            onInput={(v) => set({ K: v })}
            disabled={auto}
            hint={auto ? "set by the auto stages" : undefined}
          />
          <NumberField
            label="R (replicates per slot)"
            value={f.R}
            onInput={(v) => set({ R: v })}
            disabled={auto}
            hint={auto ? "set by the auto stages" : undefined}
          />
          <NumberField
            label="T (templates)"
            value={f.T}
            onInput={(v) => set({ T: v })}
            disabled={auto}
            placeholder="whole bank"
            hint={auto ? "set by the auto stages" : "empty: the whole bank"}
          />
          <NumberField label="B (bootstrap resamples)" value={f.B} onInput={(v) => set({ B: v })} />
          <TextField
            class="span2"
            label="Seed"
            value={f.seed}
            onInput={(v) => set({ seed: v })}
            inputMode="numeric"
            placeholder="derived"
            hint="bootstrap seed, 0 ≤ seed < 2^64"
          />
        </FieldGrid>
        <More>
          <FieldGrid>
            <NumberField
              label="Max output tokens"
              value={f.max_output_tokens}
              onInput={(v) => set({ max_output_tokens: v })}
            />
            <NumberField
              label="Concurrency"
              value={f.concurrency}
              onInput={(v) => set({ concurrency: v })}
              placeholder="adaptive"
              hint="at most this many samples in flight; empty adapts to the endpoint"
            />
            <NumberField label="Timeout per call (s)" value={f.timeout_s} onInput={(v) => set({ timeout_s: v })} />
            {isSimulated(f.model) && (
              <NumberField
                label="Simulator latency (ms)"
                value={f.latency_ms}
                onInput={(v) => set({ latency_ms: v })}
              />
            )}
          </FieldGrid>
          <CheckField
            label="No cache"
            checked={f.no_cache}
            onChange={(no_cache) => set({ no_cache })}
            hint="call the model even where the tenant's sample cache has the answer"
          />
        </More>
      </fieldset>

      <SubmitBar
        state={run}
        note={
          calls !== null && calls > 0
            ? `${plural(calls, "model call")}${versions > 1 ? ` over ${versions} runs` : ""}`
            : undefined
        }
      />
    </form>
  );
}
