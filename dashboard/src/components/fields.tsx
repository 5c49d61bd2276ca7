// Pieces shared by the "New run" forms: labelled fields that keep their text (each evaluator's
// request.ts turns the text into the request), the model picker (the simulator or a saved connection),
// and the submit logic (create the run through the SDK, then open its page to watch it live; the API's
// problem otherwise).
import type { ComponentChildren } from "preact";
import { useEffect, useId, useState } from "preact/hooks";
import { listProviderConnections, type ProviderConnection, type Run, type RunGroup } from "@assay/sdk";
import { call, client } from "../api.ts";
import { href, navigate } from "../route.ts";
import { useLiveRun } from "../live.ts";
import { ProgressBar } from "./progress.tsx";
import { FormProblem, type ModelChoice } from "./request.ts";
import "./forms.css";

type Input = { value: string; onInput: (value: string) => void };

/**
 * One labelled control with an optional hint under it. The hint is outside the <label> and tied to the
 * control by aria-describedby, so the control's accessible name is its label alone.
 */
function Field({
  label,
  hint,
  class: cls,
  children,
}: {
  label: string;
  hint?: ComponentChildren;
  class?: string;
  children: (id: string, describedBy: string | undefined) => ComponentChildren;
}) {
  const id = useId();
  const hintId = `${id}-hint`;
  return (
    <div class={cls ? `field ${cls}` : "field"}>
      <label for={id}>{label}</label>
      {children(id, hint ? hintId : undefined)}
      {hint && (
        <span id={hintId} class="hint">
          {hint}
        </span>
      )}
    </div>
  );
}

/**
 * A number as typed. No min/max/step checks in the browser: the API checks the value and its answer
 * names the field, so the form never disagrees with the API about what is allowed.
 */
export function NumberField({
  label,
  value,
  onInput,
  hint,
  disabled,
  placeholder,
}: Input & { label: string; hint?: string; disabled?: boolean; placeholder?: string }) {
  return (
    <Field label={label} hint={hint}>
      {(id, describedBy) => (
        <input
          id={id}
          aria-describedby={describedBy}
          type="number"
          step="any"
          inputMode="decimal"
          value={value}
          disabled={disabled}
          placeholder={placeholder}
          onInput={(e) => onInput(e.currentTarget.value)}
        />
      )}
    </Field>
  );
}

export function TextField({
  label,
  value,
  onInput,
  hint,
  required,
  placeholder,
  multiline,
  list,
  inputMode,
  class: cls,
}: Input & {
  label: string;
  hint?: ComponentChildren;
  required?: boolean;
  placeholder?: string;
  multiline?: boolean;
  list?: string;
  inputMode?: "numeric" | "text";
  class?: string;
}) {
  return (
    <Field label={label} hint={hint} class={cls}>
      {(id, describedBy) =>
        multiline ? (
          <textarea
            id={id}
            aria-describedby={describedBy}
            value={value}
            required={required}
            placeholder={placeholder}
            onInput={(e) => onInput(e.currentTarget.value)}
          />
        ) : (
          <input
            id={id}
            aria-describedby={describedBy}
            type="text"
            value={value}
            required={required}
            placeholder={placeholder}
            list={list}
            inputMode={inputMode}
            onInput={(e) => onInput(e.currentTarget.value)}
          />
        )
      }
    </Field>
  );
}

export function SelectField({
  label,
  value,
  onChange,
  hint,
  required,
  class: cls,
  children,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  hint?: ComponentChildren;
  required?: boolean;
  class?: string;
  children: ComponentChildren;
}) {
  return (
    <Field label={label} hint={hint} class={cls}>
      {(id, describedBy) => (
        <select
          id={id}
          aria-describedby={describedBy}
          value={value}
          required={required}
          onChange={(e) => onChange(e.currentTarget.value)}
        >
          {children}
        </select>
      )}
    </Field>
  );
}

/** A file chooser; `onFile` gets the input (read it with readFile, then clear it). */
export function FileField({
  label,
  accept,
  onFile,
  hint,
  disabled,
  class: cls,
}: {
  label: string;
  accept: string;
  onFile: (input: HTMLInputElement) => void;
  hint?: ComponentChildren;
  disabled?: boolean;
  class?: string;
}) {
  return (
    <Field label={label} hint={hint} class={cls}>
      {(id, describedBy) => (
        <input
          id={id}
          aria-describedby={describedBy}
          type="file"
          accept={accept}
          disabled={disabled}
          onChange={(e) => onFile(e.currentTarget)}
        />
      )}
    </Field>
  );
}

export function CheckField({
  label,
  checked,
  onChange,
  hint,
}: {
  label: string;
  checked: boolean;
  onChange: (v: boolean) => void;
  hint?: string;
}) {
  const id = useId();
  return (
    <div class="check">
      <input
        id={id}
        type="checkbox"
        checked={checked}
        aria-describedby={hint ? `${id}-hint` : undefined}
        onChange={(e) => onChange(e.currentTarget.checked)}
      />
      <label for={id}>{label}</label>
      {hint && (
        <span id={`${id}-hint`} class="hint">
          {hint}
        </span>
      )}
    </div>
  );
}

/** A grid of short fields that wraps to the width of the page. */
export function FieldGrid({ children }: { children: ComponentChildren }) {
  return <div class="field-grid">{children}</div>;
}

/** Settings most runs leave at the API's defaults, folded away. */
export function More({ summary = "More settings", children }: { summary?: string; children: ComponentChildren }) {
  return (
    <details class="more">
      <summary>{summary}</summary>
      {children}
    </details>
  );
}

/** The tenant's saved provider connections (`GET /v1/providers`), for the model pickers. */
export function useConnections(): { connections: ProviderConnection[] | null; error: string | null } {
  const [connections, setConnections] = useState<ProviderConnection[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    call(listProviderConnections({ client, query: { limit: 100 } })).then(
      (page) => setConnections(page.data),
      (e: Error) => setError(e.message),
    );
  }, []);
  return { connections, error };
}

/**
 * Where a model is called, as fields of the surrounding FieldGrid: "Model from" (the built-in simulator,
 * no key and no network, or one of the tenant's saved connections), then the model's name (the
 * simulator's `sim:<anything>`, or the name the connection's endpoint expects). `simulatorFields` (the
 * simulator's knobs) follow only while the simulator is chosen.
 */
export function ModelFields({
  value,
  onChange,
  connections,
  simulatorFields,
  wide,
}: {
  value: ModelChoice;
  onChange: (next: ModelChoice) => void;
  connections: ProviderConnection[] | null;
  simulatorFields?: ComponentChildren;
  /** Two grid columns for the source and a connection's model name (a form's one model, with room to spare). */
  wide?: boolean;
}) {
  const set = (patch: Partial<ModelChoice>) => onChange({ ...value, ...patch });
  const from = value.source === "sim" ? "" : value.connection;
  const chosen = connections?.find((c) => c.name === value.connection);
  const hint =
    connections === null ? undefined : connections.length === 0 ? (
      <>
        no connection saved yet: <a href={href.connections()}>add one</a>
      </>
    ) : value.source === "connection" && chosen ? (
      `calls ${chosen.base_url}`
    ) : (
      `or one of ${plural(connections.length, "saved connection")}`
    );
  const cls = wide ? "span2" : undefined;
  return (
    <>
      <SelectField
        class={cls}
        label="Model from"
        value={from}
        onChange={(v) => set(v === "" ? { source: "sim" } : { source: "connection", connection: v })}
        hint={hint}
      >
        <option value="">simulator</option>
        {(connections ?? []).map((c) => (
          <option key={c.name} value={c.name}>
            connection: {c.name}
          </option>
        ))}
      </SelectField>
      {value.source === "sim" ? (
        <>
          <TextField
            label="Simulator model"
            value={value.simModel}
            onInput={(v) => set({ simModel: v })}
            required
            hint="sim:<anything>: no key, no network"
          />
          {simulatorFields}
        </>
      ) : (
        <TextField
          class={cls}
          label="Model name"
          value={value.model}
          onInput={(v) => set({ model: v })}
          required
          placeholder="e.g. openai/gpt-4.1"
          hint="as the endpoint names it"
        />
      )}
    </>
  );
}

/** A number of units with a word, for the "this run makes N model calls" hints. */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

export type StartState = { busy: boolean; error: string | null; group: RunGroup | null };

/**
 * Submitting a form: `create` builds the request and creates the run through the SDK; on success the
 * page moves to the run to watch it live (an rpl A/B request makes a group: its runs are listed here
 * instead); on failure the API's problem (or the page's FormProblem) is shown next to the button.
 */
export function useStartRun(): StartState & {
  start: (create: () => Promise<Run | RunGroup>) => Promise<void>;
  fail: (message: string | null) => void;
} {
  const [state, setState] = useState<StartState>({ busy: false, error: null, group: null });
  const start = async (create: () => Promise<Run | RunGroup>) => {
    setState({ busy: true, error: null, group: null });
    try {
      const made = await create();
      if ("object" in made && made.object === "run_group") return setState({ busy: false, error: null, group: made });
      navigate(href.run((made as Run).id));
    } catch (e) {
      setState({
        busy: false,
        error: e instanceof FormProblem || e instanceof Error ? e.message : String(e),
        group: null,
      });
    }
  };
  return { ...state, start, fail: (error) => setState((s) => ({ ...s, error })) };
}

export function SubmitBar({
  state,
  label = "Start run",
  note,
}: {
  state: StartState;
  label?: string;
  note?: ComponentChildren;
}) {
  return (
    <div class="submit-bar">
      <button type="submit" disabled={state.busy}>
        {state.busy ? "Starting…" : label}
      </button>
      {note && <span class="hint">{note}</span>}
      {state.error && (
        <p role="alert" class="error form-error">
          {state.error}
        </p>
      )}
      {state.group && <GroupStarted group={state.group} />}
    </div>
  );
}

/** The runs of one request that made several (rpl's A/B of prompt versions), each followed live. */
function GroupStarted({ group }: { group: RunGroup }) {
  return (
    <section class="group-started" aria-label="Runs started">
      <h2>
        Started {plural(group.runs.length, "run")} <small>{group.group_id}</small>
      </h2>
      <ul>
        {group.runs.map((r) => (
          <GroupRun key={r.id} run={r} />
        ))}
      </ul>
    </section>
  );
}

function GroupRun({ run }: { run: Run }) {
  const live = useLiveRun(run) ?? run;
  const version = (run.config as { prompt_version?: string }).prompt_version;
  return (
    <li data-run={run.id}>
      <a href={href.run(run.id)}>{run.id}</a> {version && <code>{version}</code>}{" "}
      <span class={`status ${live.status}`}>{live.status}</span> <ProgressBar progress={live.progress} />
    </li>
  );
}

/** A chosen file's text (suite files, JSONL items). */
export function readFile(input: HTMLInputElement): Promise<{ name: string; text: string } | null> {
  const file = input.files?.[0];
  return file ? file.text().then((text) => ({ name: file.name, text })) : Promise.resolve(null);
}
