// New judge run: a panel of critics (each the simulator or a saved connection, with a prompt of our bank
// or its own), the items (rows, pasted JSONL or a .jsonl file), the labels and the voting, then the run's
// page to watch it.
import { useEffect, useState } from "preact/hooks";
import { createJudgeRun, listCriticPrompts, type CriticPrompt, type ProviderConnection } from "@assay/sdk";
import { call, client } from "../../api.ts";
import { list } from "../../components/request.ts";
import {
  JUDGE_DEFAULTS,
  judgeRequest,
  newCritic,
  parseItemsJsonl,
  type CriticRow,
  type ItemRow,
  type JudgeFormState,
  type Strategy,
} from "./request.ts";
import {
  CheckField,
  FieldGrid,
  FileField,
  ModelFields,
  More,
  NumberField,
  plural,
  readFile,
  SelectField,
  SubmitBar,
  TextField,
  useConnections,
  useStartRun,
} from "../../components/fields.tsx";

type Bank = { default: string; data: CriticPrompt[] };

const STRATEGIES: { value: Strategy; label: string }[] = [
  { value: "majority", label: "majority" },
  { value: "unanimous", label: "unanimous" },
  { value: "weighted", label: "weighted (critics' weights)" },
  { value: "first_disagreement", label: "first disagreement" },
];

export function JudgeForm() {
  const [f, setF] = useState<JudgeFormState>(JUDGE_DEFAULTS);
  const set = (patch: Partial<JudgeFormState>) => setF((cur) => ({ ...cur, ...patch }));
  const { connections } = useConnections();
  const [bank, setBank] = useState<Bank | null>(null);
  const [bankError, setBankError] = useState<string | null>(null);
  useEffect(() => {
    call(listCriticPrompts({ client })).then(setBank, (e: Error) => setBankError(e.message));
  }, []);
  const run = useStartRun();

  const submit = (e: Event) => {
    e.preventDefault();
    // judgeRequest reads pasted JSONL and may throw a FormProblem naming the line: shown like the API's.
    void run.start(() => call(createJudgeRun({ client, body: judgeRequest(f) })));
  };

  const setCritic = (i: number, patch: Partial<CriticRow>) =>
    set({ critics: f.critics.map((c, j) => (j === i ? { ...c, ...patch } : c)) });
  const addCritic = () => {
    const taken = new Set(f.critics.map((c) => c.name));
    let n = f.critics.length + 1;
    while (taken.has(`critic-${n}`)) n++;
    set({ critics: [...f.critics, newCritic(`critic-${n}`)] });
  };
  const nItems = itemCount(f);
  const labels = list(f.labels);

  return (
    <form class="run-form" onSubmit={submit} aria-labelledby="new-run-title">
      <h1 id="new-run-title">New judge run</h1>
      <p class="hint">
        Every critic judges every item; the verdicts are voted into a consensus, and agreement is measured per item and
        over the batch.
      </p>

      <section class="critics" aria-labelledby="critics-title">
        <h2 id="critics-title">Critics</h2>
        {bankError && (
          <p role="alert" class="error">
            {bankError}
          </p>
        )}
        {f.critics.map((c, i) => (
          <CriticCard
            key={i}
            index={i}
            critic={c}
            bank={bank}
            connections={connections}
            onChange={(patch) => setCritic(i, patch)}
            onRemove={f.critics.length > 1 ? () => set({ critics: f.critics.filter((_, j) => j !== i) }) : undefined}
          />
        ))}
        <button type="button" class="secondary" onClick={addCritic}>
          Add critic
        </button>
      </section>

      <Items f={f} set={set} />

      <fieldset>
        <legend>Labels and voting</legend>
        <TextField
          label="Labels"
          value={f.labels}
          onInput={(v) => set({ labels: v })}
          hint="the vocabulary, comma-separated; a verdict outside it is not a vote"
        />
        <datalist id="judge-labels">
          {labels.map((l) => (
            <option key={l} value={l} />
          ))}
        </datalist>
        <FieldGrid>
          <SelectField label="Voting" value={f.strategy} onChange={(v) => set({ strategy: v as Strategy })}>
            {STRATEGIES.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </SelectField>
          {f.strategy === "majority" && (
            <TextField
              label="Tie priority"
              value={f.priority}
              onInput={(v) => set({ priority: v })}
              list="judge-labels"
              placeholder="none"
              hint="labels that win a tie, in order"
            />
          )}
          {f.strategy === "first_disagreement" && (
            <TextField
              label="Disagree label"
              value={f.disagree_label}
              onInput={(v) => set({ disagree_label: v })}
              placeholder="DISAGREE"
            />
          )}
          <TextField
            label="Fallback"
            value={f.fallback}
            onInput={(v) => set({ fallback: v })}
            list="judge-labels"
            placeholder="UNCLEAR"
            hint="when no valid verdict exists"
          />
          <NumberField
            label="Contested threshold"
            value={f.contested_threshold}
            onInput={(v) => set({ contested_threshold: v })}
            hint="below it: the human-review queue"
          />
          <NumberField label="Seed" value={f.seed} onInput={(v) => set({ seed: v })} hint="seeds the simulator" />
          <NumberField
            label="Concurrency"
            value={f.concurrency}
            onInput={(v) => set({ concurrency: v })}
            placeholder="adaptive"
            hint="at most this many critic calls in flight; empty adapts to the endpoint"
          />
        </FieldGrid>
        {f.strategy === "weighted" && (
          <CheckField
            label="Use confidence"
            checked={f.use_confidence}
            onChange={(use_confidence) => set({ use_confidence })}
            hint="weight × the critic's confidence"
          />
        )}
      </fieldset>

      <SubmitBar
        state={run}
        note={
          nItems !== null
            ? `${plural(nItems, "item")} × ${plural(f.critics.length, "critic")} = ${plural(nItems * f.critics.length, "critic call")}`
            : undefined
        }
      />
    </form>
  );
}

/** How many items the form holds now, or null while pasted JSONL does not read. */
function itemCount(f: JudgeFormState): number | null {
  if (f.itemsFrom === "rows") return f.items.length;
  try {
    return parseItemsJsonl(f.jsonl).length;
  } catch {
    return null;
  }
}

function CriticCard({
  index,
  critic: c,
  bank,
  connections,
  onChange,
  onRemove,
}: {
  index: number;
  critic: CriticRow;
  bank: Bank | null;
  connections: ProviderConnection[] | null;
  onChange: (patch: Partial<CriticRow>) => void;
  onRemove?: () => void;
}) {
  const title = c.name.trim() || `critic ${index + 1}`;
  const promptValue = c.promptFrom === "own" ? "own" : c.prompt;
  return (
    <fieldset class="critic" data-critic={index} aria-label={`Critic ${index + 1}: ${title}`}>
      <legend>
        Critic {index + 1}
        {onRemove && (
          <button type="button" class="secondary small" onClick={onRemove} aria-label={`Remove critic ${title}`}>
            Remove
          </button>
        )}
      </legend>
      <FieldGrid>
        <TextField label="Name" value={c.name} onInput={(name) => onChange({ name })} required />
        <ModelFields
          value={c.model}
          onChange={(model) => onChange({ model })}
          connections={connections}
          simulatorFields={
            <NumberField
              label="Simulator noise"
              value={c.noise}
              onInput={(noise) => onChange({ noise })}
              hint="chance of a random label"
            />
          }
        />
        <SelectField
          class="span2"
          label="Prompt"
          value={promptValue}
          onChange={(v) => onChange(v === "own" ? { promptFrom: "own" } : { promptFrom: "bank", prompt: v })}
          hint={promptHint(c, bank)}
        >
          <option value="">default{bank ? ` (${bank.default})` : ""}</option>
          {(bank?.data ?? []).map((p) => (
            <option key={`${p.name}@${p.version}`} value={`${p.name}@${p.version}`}>
              {p.name}@{p.version}
            </option>
          ))}
          {/* A prompt named before the bank has loaded keeps its option. */}
          {c.promptFrom === "bank" && c.prompt && !bank && <option value={c.prompt}>{c.prompt}</option>}
          <option value="own">my own system prompt and template…</option>
        </SelectField>
      </FieldGrid>
      {c.promptFrom === "own" && (
        <>
          <TextField
            label="System prompt"
            multiline
            value={c.system_prompt}
            onInput={(system_prompt) => onChange({ system_prompt })}
            hint="empty: send none"
          />
          <TextField
            label="Prompt template"
            multiline
            value={c.prompt_template}
            onInput={(prompt_template) => onChange({ prompt_template })}
            required
            hint="{query}, {labels}, an item's context keys; {{ }} for literal braces"
          />
        </>
      )}
      <More summary="Weight, temperature, tokens, timeout">
        <FieldGrid>
          <NumberField
            label="Weight"
            value={c.weight}
            onInput={(weight) => onChange({ weight })}
            hint="in weighted voting"
          />
          <NumberField label="Temperature" value={c.temperature} onInput={(temperature) => onChange({ temperature })} />
          <NumberField label="Max tokens" value={c.max_tokens} onInput={(max_tokens) => onChange({ max_tokens })} />
          <NumberField
            label="Timeout per call (s)"
            value={c.timeout_s}
            onInput={(timeout_s) => onChange({ timeout_s })}
          />
        </FieldGrid>
      </More>
    </fieldset>
  );
}

/** What the chosen bank prompt is for (its description), so a reader need not know the names. */
function promptHint(c: CriticRow, bank: Bank | null): string | undefined {
  if (c.promptFrom === "own" || !bank) return undefined;
  const ref = c.prompt || bank.default;
  const [name, version] = ref.split("@");
  const found = bank.data
    .filter((p) => p.name === name && (version === undefined || String(p.version) === version))
    .sort((a, b) => b.version - a.version)[0];
  return found?.description;
}

function Items({ f, set }: { f: JudgeFormState; set: (patch: Partial<JudgeFormState>) => void }) {
  const [fileNote, setFileNote] = useState<string | null>(null);
  const setItem = (i: number, patch: Partial<ItemRow>) =>
    set({ items: f.items.map((r, j) => (j === i ? { ...r, ...patch } : r)) });
  const addItem = () => {
    const taken = new Set(f.items.map((r) => r.id));
    let n = f.items.length + 1;
    while (taken.has(`q${n}`)) n++;
    set({ items: [...f.items, { id: `q${n}`, query: "", expected: "" }] });
  };
  const loadFile = async (input: HTMLInputElement) => {
    const file = await readFile(input);
    if (!file) return;
    set({ jsonl: file.text, itemsFrom: "jsonl" });
    setFileNote(`Read ${file.name}.`);
    input.value = "";
  };
  return (
    <section class="items" aria-labelledby="items-title">
      <h2 id="items-title">Items</h2>
      <div class="choice" role="radiogroup" aria-label="Items from">
        <label>
          <input
            type="radio"
            name="items-from"
            checked={f.itemsFrom === "rows"}
            onChange={() => set({ itemsFrom: "rows" })}
          />{" "}
          Rows
        </label>
        <label>
          <input
            type="radio"
            name="items-from"
            checked={f.itemsFrom === "jsonl"}
            onChange={() => set({ itemsFrom: "jsonl" })}
          />{" "}
          JSONL (paste or upload)
        </label>
      </div>
      {f.itemsFrom === "rows" ? (
        <div class="item-rows">
          <div class="item-row item-head" aria-hidden="true">
            <span>id</span>
            <span>query</span>
            <span>expected label</span>
            <span />
          </div>
          {f.items.map((r, i) => (
            <div class="item-row" key={i} data-item={i}>
              <input
                type="text"
                aria-label={`Item ${i + 1} id`}
                placeholder="id"
                value={r.id}
                required
                onInput={(e) => setItem(i, { id: e.currentTarget.value })}
              />
              <input
                type="text"
                aria-label={`Item ${i + 1} query`}
                placeholder="the text the critics judge"
                value={r.query}
                required
                onInput={(e) => setItem(i, { query: e.currentTarget.value })}
              />
              <input
                type="text"
                aria-label={`Item ${i + 1} expected label`}
                placeholder="expected"
                list="judge-labels"
                value={r.expected}
                onInput={(e) => setItem(i, { expected: e.currentTarget.value })}
              />
              <button
                type="button"
                class="secondary small"
                disabled={f.items.length === 1}
                aria-label={`Remove item ${i + 1}`}
                onClick={() => set({ items: f.items.filter((_, j) => j !== i) })}
              >
                Remove
              </button>
            </div>
          ))}
          <button type="button" class="secondary" onClick={addItem}>
            Add item
          </button>
        </div>
      ) : (
        <>
          <TextField
            label="Items (JSONL)"
            multiline
            value={f.jsonl}
            onInput={(jsonl) => set({ jsonl })}
            required
            placeholder={'{"id": "q1", "query": "Sandpiles and forest fires", "expected": "REJECT"}'}
            hint="one JSON object a line: query, id (or query_id), context, expected"
          />
          <FileField
            label="Upload a .jsonl file"
            accept=".jsonl,.ndjson,.json,application/x-ndjson,text/plain"
            onFile={(input) => void loadFile(input)}
            hint="its lines replace the text above"
          />
          {fileNote && (
            <p class="hint" role="status">
              {fileNote}
            </p>
          )}
        </>
      )}
    </section>
  );
}
