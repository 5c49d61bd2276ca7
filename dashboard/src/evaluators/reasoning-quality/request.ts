// The reasoning-quality "New run" form as data: the six metrics and the presets' weight tables, custom
// weights normalised to 1, a preview of a dataset file before it is uploaded, the upload body, and the run
// request. Pure (no DOM, no SDK calls), so test/node/dashboard/reasoning-quality-form.test.ts checks it by hand.
import type { DatasetUpload, ReasoningQualityRunRequest } from "@assay/sdk";

import { METRICS as RQ_METRICS, type MetricKey } from "./metrics.ts";

/** The six metrics with the form's field names (short and label). */
export const METRICS = RQ_METRICS.map((m) => ({ key: m.key, short: m.abbr, label: m.name }));

export type { MetricKey };
export type Weights = Record<MetricKey, number>;

const w = (cq: number, cs: number, rs: number, ls: number, es: number, ss: number): Weights => ({
  correctness: cq,
  consistency: cs,
  robustness: rs,
  logical_coherence: ls,
  efficiency: es,
  stability: ss,
});

const CONFIG_ONLY = {
  medical_triage: w(0.4, 0.05, 0.3, 0.2, 0.03, 0.02),
  legal_compliance: w(0.15, 0.25, 0.2, 0.35, 0.03, 0.02),
  edge_device: w(0.3, 0.03, 0.1, 0.05, 0.5, 0.02),
};

export type PresetName = "paper-v8" | "1.1.4";

/**
 * The API's presets (docs/evaluators/reasoning-quality.md: `preset`), strategy → weights, as the engine holds them
 * (src/engines/reasoning-quality/aggregate.ts `PRESETS`; the node test checks the two agree). Shown in
 * the form, and a starting point for the custom sliders.
 */
export const PRESETS: Record<PresetName, { title: string; strategies: Record<string, Weights> }> = {
  "paper-v8": {
    title: "paper-v8: the paper's camera-ready weights (default)",
    strategies: {
      balanced: w(0.1667, 0.1667, 0.1667, 0.1667, 0.1667, 0.1667),
      safety_priority: w(0.3, 0.05, 0.3, 0.25, 0.05, 0.05),
      accuracy_priority: w(0.5, 0.1, 0.15, 0.15, 0.05, 0.05),
      efficiency_priority: w(0.2, 0.15, 0.15, 0.1, 0.3, 0.1),
      ...CONFIG_ONLY,
    },
  },
  "1.1.4": {
    title: "1.1.4: the table of the original's PyPI 1.1.4 README",
    strategies: {
      balanced: w(1 / 6, 1 / 6, 1 / 6, 1 / 6, 1 / 6, 1 / 6),
      safety_priority: w(0.3, 0.2, 0.3, 0.1, 0.05, 0.05),
      accuracy_priority: w(0.4, 0.25, 0.15, 0.1, 0.05, 0.05),
      efficiency_priority: w(0.2, 0.15, 0.15, 0.1, 0.3, 0.1),
      ...CONFIG_ONLY,
    },
  },
};

/** Each weight over their sum (the API normalises the same way); null when no weight is positive. */
export function normaliseWeights(raw: Weights): Weights | null {
  let sum = 0;
  for (const m of METRICS) {
    const v = raw[m.key];
    if (!Number.isFinite(v) || v < 0) return null;
    sum += v;
  }
  if (sum <= 0) return null;
  const out = {} as Weights;
  for (const m of METRICS) out[m.key] = raw[m.key] / sum;
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Dataset files: a preview before the upload (the API validates the file itself, and its errors are shown)
// ---------------------------------------------------------------------------------------------------------

export type UploadFormat = DatasetUpload["format"];

export const UPLOAD_FORMATS: { value: UploadFormat; label: string }[] = [
  { value: "csv", label: "CSV (question, answer columns)" },
  { value: "json", label: "JSON items [{question, answer, perturbations?}]" },
  { value: "gsm8k", label: "GSM8K rows [{question, answer}]" },
  { value: "strategyqa", label: "StrategyQA rows [{question, answer: true|false}]" },
  { value: "mmlu", label: "MMLU rows {subject: [{question, choices, answer}]}" },
];

/** The format a file's name suggests: `.csv` is CSV, anything else is read as JSON items. */
export function formatOfFile(fileName: string): UploadFormat {
  return /\.csv$/i.test(fileName) ? "csv" : "json";
}

/** A dataset name from a file name: without its extension, at most 100 characters (the API's limit). */
export function datasetNameOf(fileName: string): string {
  const base = fileName
    .replace(/^.*[\\/]/, "")
    .replace(/\.[^.]*$/, "")
    .trim();
  return (base || "upload").slice(0, 100);
}

/**
 * RFC 4180 records: comma-separated fields, optionally in double quotes (holding commas, line breaks and
 * `""`); a leading BOM is dropped and a final line break opens no record. Lenient where the API is strict
 * (a stray quote is kept as text): the preview shows what is there, the upload says what is wrong.
 */
export function parseCsvRecords(text: string): string[][] {
  const s = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const records: string[][] = [];
  let fields: string[] = [];
  let field = "";
  let quoted = false;
  let open = false; // the current record has begun
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    open = true;
    if (quoted) {
      if (c === '"' && s[i + 1] === '"') {
        field += '"';
        i += 2;
      } else if (c === '"') {
        quoted = false;
        i++;
      } else {
        field += c;
        i++;
      }
    } else if (c === '"' && field === "") {
      quoted = true;
      i++;
    } else if (c === ",") {
      fields.push(field);
      field = "";
      i++;
    } else if (c === "\r" || c === "\n") {
      fields.push(field);
      records.push(fields);
      fields = [];
      field = "";
      open = false;
      i += c === "\r" && s[i + 1] === "\n" ? 2 : 1;
    } else {
      field += c;
      i++;
    }
  }
  if (open) {
    fields.push(field);
    records.push(fields);
  }
  return records;
}

export type Preview = { columns: string[]; rows: string[][]; count: number; note?: string };

const PREVIEW_ROWS = 5;

const cellText = (v: unknown): string =>
  v === undefined || v === null ? "" : typeof v === "string" ? v : JSON.stringify(v);

/**
 * What a file holds, as the form shows it before uploading: its columns, its first rows and how many
 * items it has. Throws (with a message for the page) when the text cannot be read as the format at all.
 */
export function previewDataset(text: string, format: UploadFormat, rows = PREVIEW_ROWS): Preview {
  if (format === "csv") {
    const records = parseCsvRecords(text).filter((r) => !(r.length === 1 && r[0].trim() === ""));
    if (records.length === 0) throw new Error("The file is empty.");
    const [header, ...data] = records;
    return { columns: header.map((h) => h.trim()), rows: data.slice(0, rows), count: data.length };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new Error(`Not valid JSON: ${(e as Error).message}`);
  }
  if (format === "mmlu") {
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed))
      throw new Error("MMLU rows are an object: each subject maps to its rows.");
    const all = Object.entries(parsed as Record<string, unknown>).flatMap(([subject, list]) =>
      Array.isArray(list) ? list.map((r) => ({ subject, ...(r as object) }) as Record<string, unknown>) : [],
    );
    const columns = ["subject", "question", "choices", "answer"];
    return { columns, rows: all.slice(0, rows).map((r) => columns.map((c) => cellText(r[c]))), count: all.length };
  }
  if (!Array.isArray(parsed)) throw new Error(`Expected a JSON array of ${format === "json" ? "items" : "rows"}.`);
  const columns =
    format === "json" ? ["id", "question", "answer", "type", "dataset", "perturbations"] : ["question", "answer"];
  const shown = parsed.slice(0, rows).map((r) => {
    const row = (r && typeof r === "object" ? r : {}) as Record<string, unknown>;
    return columns.map((c) =>
      c === "perturbations" && Array.isArray(row[c]) ? `${(row[c] as unknown[]).length}` : cellText(row[c]),
    );
  });
  // Columns no shown row uses (an item without id or dataset) are left out of the preview.
  const used = columns.map((_, j) => shown.some((r) => r[j] !== ""));
  return {
    columns: columns.filter((_, j) => used[j]),
    rows: shown.map((r) => r.filter((_, j) => used[j])),
    count: parsed.length,
    note:
      format === "json" && used[columns.indexOf("perturbations")] ? "perturbations: how many each item has" : undefined,
  };
}

/** The body of `POST /v1/reasoning-quality/datasets` for a file's text (JSON formats are parsed here). */
export function uploadBody(
  name: string,
  format: UploadFormat,
  text: string,
  opts: { perturbationsColumn?: boolean } = {},
): DatasetUpload {
  if (format === "csv")
    return { name, format, csv: text, ...(opts.perturbationsColumn ? { perturbations_column: true } : {}) };
  const parsed = JSON.parse(text) as unknown;
  if (format === "json") return { name, format, items: parsed as unknown[] };
  return { name, format, rows: parsed as DatasetUpload["rows"] };
}

// ---------------------------------------------------------------------------------------------------------
// The run request
// ---------------------------------------------------------------------------------------------------------

export type ModelRow = {
  key: number;
  enabled: boolean;
  name: string;
} & (
  | { kind: "sim"; accuracy: number; verbosity: number; variation: number }
  | { kind: "connection"; connection: string; model: string; temperature: number }
);

export type DatasetChoice =
  | { kind: "uploaded"; id: string | null; nItems: number | null; numSamples: number | null }
  | { kind: "synthetic"; seed: number; num_reasoning: number; num_adversarial: number; num_robustness: number };

export type RqForm = {
  models: ModelRow[];
  dataset: DatasetChoice;
  K: number;
  P: number;
  preset: PresetName;
  /** Custom weights (raw slider values), or null for the preset's strategies alone. */
  custom: { name: string; weights: Weights } | null;
  matcher: "canonical" | "legacy7";
  ls: "lexical" | "none";
  ss: "jaccard" | "none";
  seed: number;
  /** Null: the run adapts to its endpoints. */
  concurrency: number | null;
};

/** The simulator reasoners the form offers at first (the README's example, plus one in between). */
export function defaultModels(): ModelRow[] {
  return [
    { key: 1, enabled: true, name: "careful", kind: "sim", accuracy: 0.9, verbosity: 6, variation: 0.2 },
    { key: 2, enabled: false, name: "steady", kind: "sim", accuracy: 0.75, verbosity: 3, variation: 0.2 },
    { key: 3, enabled: false, name: "quick", kind: "sim", accuracy: 0.6, verbosity: 1, variation: 0.5 },
  ];
}

/** How many items a dataset choice holds (an upload: its `n_items`, or fewer with `num_samples`). */
export function itemCount(d: DatasetChoice): number | null {
  if (d.kind === "synthetic") return d.num_reasoning + d.num_adversarial + d.num_robustness;
  if (d.nItems === null) return null;
  return d.numSamples ? Math.min(d.numSamples, d.nItems) : d.nItems;
}

/** Model calls the run plans: K + P per item and model (docs/evaluators/reasoning-quality.md). */
export function plannedCalls(form: Pick<RqForm, "models" | "dataset" | "K" | "P">): number | null {
  const n = itemCount(form.dataset);
  if (n === null) return null;
  return form.models.filter((m) => m.enabled).length * n * (form.K + form.P);
}

const NAME = /^.{1,100}$/s;

/**
 * The request for `POST /v1/reasoning-quality/runs`, or what keeps the form from making one (each a
 * sentence for the page; the API's own validation still has the last word).
 */
export function buildRunRequest(
  form: RqForm,
): { body: ReasoningQualityRunRequest; problems: [] } | { body: null; problems: string[] } {
  const problems: string[] = [];
  const models = form.models.filter((m) => m.enabled);
  if (models.length === 0) problems.push("Tick at least one model.");
  const names = new Set<string>();
  for (const m of models) {
    const name = m.name.trim();
    if (!NAME.test(name)) problems.push("Every ticked model needs a name (up to 100 characters).");
    else if (names.has(name)) problems.push(`Two ticked models are named “${name}”: give each its own name.`);
    names.add(name);
    if (m.kind === "connection" && (!m.connection || !m.model.trim()))
      problems.push(`Model “${name}” needs a saved connection and the model's name at that endpoint.`);
  }
  if (form.dataset.kind === "uploaded" && !form.dataset.id)
    problems.push("Upload a dataset (or choose the synthetic generator).");
  let strategies: ReasoningQualityRunRequest["strategies"];
  if (form.custom) {
    const normalised = normaliseWeights(form.custom.weights);
    if (!normalised) problems.push("Give at least one metric a weight above 0.");
    const name = form.custom.name.trim();
    if (!/^.{1,50}$/s.test(name)) problems.push("Name the custom strategy (up to 50 characters).");
    else if (name in PRESETS[form.preset].strategies)
      problems.push(`“${name}” is a strategy of the preset: give the custom one another name.`);
    if (normalised) strategies = { [name]: { ...normalised } };
  }
  if (problems.length) return { body: null, problems: [...new Set(problems)] };

  const body: ReasoningQualityRunRequest = {
    models: models.map((m) =>
      m.kind === "sim"
        ? {
            name: m.name.trim(),
            model: "sim:reasoner",
            simulator: { accuracy: m.accuracy, verbosity: m.verbosity, variation: m.variation },
          }
        : {
            name: m.name.trim(),
            model: m.model.trim(),
            provider: { connection: m.connection },
            temperature: m.temperature,
          },
    ),
    datasets: [
      form.dataset.kind === "uploaded"
        ? { id: form.dataset.id!, ...(form.dataset.numSamples ? { num_samples: form.dataset.numSamples } : {}) }
        : {
            synthetic: {
              seed: form.dataset.seed,
              num_reasoning: form.dataset.num_reasoning,
              num_adversarial: form.dataset.num_adversarial,
              num_robustness: form.dataset.num_robustness,
            },
          },
    ],
    K: form.K,
    P: form.P,
    matcher: form.matcher,
    ls: form.ls,
    ss: form.ss,
    preset: form.preset,
    seed: form.seed,
    ...(form.concurrency !== null ? { concurrency: form.concurrency } : {}),
  };
  if (strategies) body.strategies = strategies;
  return { body, problems: [] };
}
