// New chain-determinism run: the fields of POST /v1/chain-determinism/runs with its defaults, a suite
// (ours, one of the tenant's, or a file uploaded here with POST /v1/chain-determinism/suites), then the
// run's page to watch it.
import { useEffect, useState } from "preact/hooks";
import {
  createChainDeterminismRun,
  createChainDeterminismSuite,
  listChainDeterminismSuites,
  type Suite,
} from "@assay/sdk";
import { call, client } from "../../api.ts";
import { isSimulated, num } from "../../components/request.ts";
import {
  CHAIN_DETERMINISM_DEFAULTS,
  chainDeterminismRequest,
  parseSuiteFile,
  type ChainDeterminismFormState,
} from "./request.ts";
import {
  FieldGrid,
  FileField,
  ModelFields,
  More,
  NumberField,
  plural,
  readFile,
  SelectField,
  SubmitBar,
  useConnections,
  useStartRun,
} from "../../components/fields.tsx";

const DEFAULT_SUITE_QUERIES = 10;

export function ChainDeterminismForm() {
  const [f, setF] = useState<ChainDeterminismFormState>(CHAIN_DETERMINISM_DEFAULTS);
  const set = (patch: Partial<ChainDeterminismFormState>) => setF((cur) => ({ ...cur, ...patch }));
  const { connections } = useConnections();
  const run = useStartRun();

  const submit = (e: Event) => {
    e.preventDefault();
    void run.start(() => call(createChainDeterminismRun({ client, body: chainDeterminismRequest(f) })));
  };

  const nQ = num(f.n_queries);
  const nR = num(f.n_replays);
  const replays = typeof nQ === "number" && typeof nR === "number" ? nQ * nR : null;

  return (
    <form class="run-form" onSubmit={submit} aria-labelledby="new-run-title">
      <h1 id="new-run-title">New chain-determinism run</h1>
      <p class="hint">
        Replays each query of a suite N times against one model and measures whether its tool-call sequences diverge.
      </p>

      <fieldset>
        <legend>Model</legend>
        <FieldGrid>
          <ModelFields
            wide
            value={f.model}
            onChange={(model) => set({ model })}
            connections={connections}
            simulatorFields={
              <>
                <NumberField
                  label="Simulator divergence"
                  value={f.divergence}
                  onInput={(v) => set({ divergence: v })}
                  hint="per replay, 0–1"
                />
                <NumberField
                  label="Simulator latency (ms)"
                  value={f.latency_ms}
                  onInput={(v) => set({ latency_ms: v })}
                />
              </>
            }
          />
        </FieldGrid>
      </fieldset>

      <SuitePicker value={f.suite} onChange={(suite) => set({ suite })} />

      <fieldset>
        <legend>Replays</legend>
        <FieldGrid>
          <NumberField
            label="Queries"
            value={f.n_queries}
            onInput={(v) => set({ n_queries: v })}
            hint="n_queries: the suite's first N"
          />
          <NumberField
            label="Replays per query"
            value={f.n_replays}
            onInput={(v) => set({ n_replays: v })}
            hint="n_replays"
          />
          <NumberField label="Temperature" value={f.temperature} onInput={(v) => set({ temperature: v })} />
          <NumberField
            label="Concurrency"
            value={f.concurrency}
            onInput={(v) => set({ concurrency: v })}
            placeholder="adaptive"
            hint="at most this many replays in flight; empty adapts to the endpoint"
          />
          <NumberField
            label="Seed"
            value={f.seed}
            onInput={(v) => set({ seed: v })}
            placeholder="none"
            hint={isSimulated(f.model) ? "seeds the simulator" : "sent to the provider"}
          />
        </FieldGrid>
        <More>
          <FieldGrid>
            <NumberField
              label="Max turns"
              value={f.max_turns}
              onInput={(v) => set({ max_turns: v })}
              hint="requests per replay"
            />
            <NumberField label="Max tokens" value={f.max_tokens} onInput={(v) => set({ max_tokens: v })} />
            <NumberField
              label="Min successful replays"
              value={f.min_success}
              onInput={(v) => set({ min_success: v })}
              hint="for a query to be measurable"
            />
            <NumberField label="Timeout per call (s)" value={f.timeout_s} onInput={(v) => set({ timeout_s: v })} />
          </FieldGrid>
        </More>
      </fieldset>

      <SubmitBar state={run} note={replays !== null && replays > 0 ? `${plural(replays, "replay")}` : undefined} />
    </form>
  );
}

/** `default`, one of the tenant's suites, or a file uploaded here (then selected). */
function SuitePicker({ value, onChange }: { value: string; onChange: (id: string) => void }) {
  const [suites, setSuites] = useState<Suite[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [uploaded, setUploaded] = useState<Suite | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    call(listChainDeterminismSuites({ client, query: { limit: 100 } })).then(
      (page) => setSuites(page.data),
      (e: Error) => setError(e.message),
    );
  }, []);

  const upload = async (input: HTMLInputElement) => {
    setError(null);
    setUploaded(null);
    const file = await readFile(input);
    if (!file) return;
    setBusy(true);
    try {
      const suite = await call(createChainDeterminismSuite({ client, body: parseSuiteFile(file.text, file.name) }));
      setSuites((cur) => [suite, ...(cur ?? [])]);
      setUploaded(suite);
      onChange(suite.id);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
      input.value = "";
    }
  };

  return (
    <fieldset>
      <legend>Suite</legend>
      <FieldGrid>
        <SelectField class="wide" label="Suite to run" value={value} onChange={onChange}>
          <option value="default">
            default: assay's ticketing and inventory suite ({DEFAULT_SUITE_QUERIES} queries)
          </option>
          {(suites ?? []).map((s) => (
            <option key={s.id} value={s.id}>
              {s.name} ({plural(s.n_queries, "query", "queries")}, {plural(s.n_tools, "tool")}) · {s.id}
            </option>
          ))}
        </SelectField>
        <FileField
          class="wide"
          label="Upload a suite file (JSON)"
          accept=".json,application/json"
          disabled={busy}
          onFile={(input) => void upload(input)}
          hint={
            <>
              <code>{`{"name", "suite": {"system_prompt", "tools", "stubs", "queries", "version"?}}`}</code>, as{" "}
              <code>GET /v1/chain-determinism/suites/{"{id}"}</code> returns it; uploaded and selected at once
            </>
          }
        />
      </FieldGrid>
      {busy && <p>Uploading…</p>}
      {uploaded && (
        <p class="uploaded" role="status">
          Uploaded “{uploaded.name}”: {plural(uploaded.n_queries, "query", "queries")},{" "}
          {plural(uploaded.n_tools, "tool")} ({uploaded.id}), selected.
        </p>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </fieldset>
  );
}
