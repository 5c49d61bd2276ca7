/**
 * Dataset parsing for the reasoning-quality engine (spec reasoning-quality.md §9): uploaded custom datasets
 * (JSON §9.5, CSV §9.5) and rows of the three public benchmarks (GSM8K §9.1, MMLU §9.2, StrategyQA §9.3),
 * all turned into one item shape. Fetching the benchmark rows is the caller's job; this module is pure.
 *
 * Errors are TypeError (wrong or missing JSON type) or RangeError (bad value, CSV syntax). Their message starts
 * with the offending path, e.g. `items[3].answer: required`, and the path is also on `.field`, so the API
 * layer can answer 400 naming the field.
 */
import { PyRandom } from "./pyrandom.ts";
import { PY_WS, pyStrip } from "../python/index.ts";

/** One evaluation item, whatever its source. Extra source fields (full_solution, choices, facts, …) ride along. */
export interface DatasetItem {
  id: string;
  question: string;
  /** Gold answer, always a string (§9.5: numbers are given as strings). */
  answer: string;
  type?: string;
  /** Per-dataset breakdown tag (§1.5). */
  dataset?: string;
  /** RS inputs (§4); absent or all-empty means the item is left out of RS. */
  perturbations?: string[];
  /** Record key of the original's evaluator; kept for parity of the breakdown quirks. */
  question_id?: string;
  [extra: string]: unknown;
}

/** A perturbation backend for §9.4 [D] option (a) (pre-generated) or precomputed (b): candidates for one question. */
export type PerturbFn = (question: string) => readonly string[];

/** An Error whose message starts with `field`, which is also exposed as a property. */
export type DatasetFieldError = (TypeError | RangeError) & { field: string };

function fieldError(Ctor: typeof TypeError | typeof RangeError, field: string, msg: string): DatasetFieldError {
  return Object.assign(new Ctor(`${field}: ${msg}`), { field });
}

/** True for errors thrown by this module's validators. */
export function isDatasetFieldError(e: unknown): e is DatasetFieldError {
  return (e instanceof TypeError || e instanceof RangeError) && typeof (e as { field?: unknown }).field === "string";
}

const pad4 = (i: number): string => String(i).padStart(4, "0");

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The original's `generate_perturbations` contract (§9.4): exactly `n` slots, in backend order; a slot is ""
 * when the backend gave nothing or returned the question itself (after strip), so an unperturbed question is
 * never passed off as a perturbation. Without a backend every slot is "" (what [C] emits when spaCy/WordNet/NLLB
 * are missing), which §4 [D] treats as "no perturbations": the item is left out of RS, i.e. option (c).
 */
export function normalizePerturbations(question: string, candidates: readonly string[] | undefined, n = 3): string[] {
  const q = pyStrip(question);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const c = candidates?.[i];
    out.push(typeof c === "string" && c !== "" && pyStrip(c) !== q ? c : "");
  }
  return out;
}

function checkCount(field: string, n: unknown): number {
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0)
    throw fieldError(RangeError, field, `must be a non-negative integer, got ${String(n)}`);
  return n;
}

/**
 * `random.Random(seed).shuffle(list(range(length)))[:numSamples]`: the sampling of the GSM8K and StrategyQA
 * loaders (§9.1, §9.3), and our §9.5 [D] `num_samples` rule for custom datasets.
 */
export function sampleIndices(length: number, numSamples: number, seed: bigint | number): number[] {
  checkCount("num_samples", numSamples);
  const indices = Array.from({ length }, (_, i) => i);
  new PyRandom(seed).shuffle(indices);
  return indices.slice(0, numSamples);
}

/** Options shared by the custom-dataset parsers. */
export interface CustomDatasetOptions {
  /** Dataset name (the config `name`), used as the `dataset` tag of items that carry none (§9.5). */
  name?: string;
  /** §9.5 [D]: when given, keep the first n items after a seeded shuffle; when absent, keep all in order. */
  numSamples?: number;
  /** Seed for that shuffle (default 42, the original's default seed). */
  seed?: bigint | number;
}

function sampleItems(items: DatasetItem[], opts: CustomDatasetOptions): DatasetItem[] {
  if (opts.numSamples === undefined) return items;
  return sampleIndices(items.length, opts.numSamples, opts.seed ?? 42).map((i) => items[i]);
}

/** A required non-blank string. */
function requiredString(field: string, v: unknown): string {
  if (v === undefined || v === null) throw fieldError(TypeError, field, "required");
  if (typeof v !== "string") throw fieldError(TypeError, field, `must be a string, got ${typeof v}`);
  if (pyStrip(v) === "") throw fieldError(RangeError, field, "required (must not be blank)");
  return v;
}

/** An optional identifier: a non-empty string, or an integer that is turned into its decimal string. */
function optionalKey(field: string, v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === "number" && Number.isSafeInteger(v)) return String(v);
  if (typeof v !== "string") throw fieldError(TypeError, field, `must be a string, got ${typeof v}`);
  if (v === "") throw fieldError(RangeError, field, "must not be empty");
  return v;
}

function optionalString(field: string, v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") throw fieldError(TypeError, field, `must be a string, got ${typeof v}`);
  return v;
}

function stringArray(field: string, v: unknown): string[] {
  if (!Array.isArray(v)) throw fieldError(TypeError, field, "must be an array of strings");
  v.forEach((p, j) => {
    if (typeof p !== "string")
      throw fieldError(TypeError, `${field}[${j}]`, `must be a string, got ${p === null ? "null" : typeof p}`);
  });
  return [...(v as string[])];
}

function rejectDuplicateIds(items: readonly DatasetItem[], label: (i: number) => string): void {
  const seen = new Map<string, number>();
  items.forEach((item, i) => {
    const first = seen.get(item.id);
    // Item records are stored by id in the Workers design (§11), so two items must never share one.
    if (first !== undefined)
      throw fieldError(RangeError, `${label(i)}.id`, `duplicate id ${JSON.stringify(item.id)} (also ${label(first)})`);
    seen.set(item.id, i);
  });
}

/**
 * Custom JSON dataset (§9.5): an array of `{id?, question, answer, type?, perturbations?, dataset?, question_id?, …}`.
 * `input` is the parsed JSON value or its text. Unknown fields are kept. Missing ids become `q<index>` (index
 * in the upload, §9.5 [D]); perturbations are kept as given (the evaluator decides which slots are usable, §1.3).
 * @param path prefix of error fields (default `items`).
 * @throws TypeError / RangeError naming the field, e.g. `items[3].answer: required`.
 */
export function parseCustomJson(input: unknown, opts: CustomDatasetOptions & { path?: string } = {}): DatasetItem[] {
  const path = opts.path ?? "items";
  let value = input;
  if (typeof input === "string") {
    try {
      value = JSON.parse(input.replace(/^\uFEFF/, ""));
    } catch (e) {
      throw fieldError(RangeError, path, `invalid JSON (${(e as Error).message})`);
    }
  }
  if (!Array.isArray(value)) throw fieldError(TypeError, path, "must be an array of items");
  if (value.length === 0) throw fieldError(RangeError, path, "must contain at least one item");
  const items = value.map((raw, i): DatasetItem => {
    const at = `${path}[${i}]`;
    if (!isPlainObject(raw)) throw fieldError(TypeError, at, "must be an object with question and answer");
    if (typeof raw.answer === "number")
      throw fieldError(TypeError, `${at}.answer`, 'must be a string (give numbers as strings, e.g. "42")');
    const item: DatasetItem = {
      ...raw,
      id: optionalKey(`${at}.id`, raw.id) ?? `q${i}`,
      question: requiredString(`${at}.question`, raw.question),
      answer: requiredString(`${at}.answer`, raw.answer),
    };
    for (const key of ["type", "dataset"] as const) {
      const v = optionalString(`${at}.${key}`, raw[key]);
      if (v === undefined) delete item[key];
      else item[key] = v;
    }
    const qid = optionalKey(`${at}.question_id`, raw.question_id);
    if (qid === undefined) delete item.question_id;
    else item.question_id = qid;
    if (raw.perturbations === undefined || raw.perturbations === null) delete item.perturbations;
    else item.perturbations = stringArray(`${at}.perturbations`, raw.perturbations);
    if (item.dataset === undefined && opts.name !== undefined) item.dataset = opts.name;
    return item;
  });
  rejectDuplicateIds(items, (i) => `${path}[${i}]`);
  return sampleItems(items, opts);
}

/** One CSV record and the 1-based line it starts on (quoted fields may span lines). */
export interface CsvRecord {
  fields: string[];
  line: number;
}

/**
 * RFC 4180 CSV: comma-separated fields, records ended by CRLF, LF or a lone CR, fields optionally in double
 * quotes (which may then hold commas, line breaks and `""` for a quote). A leading UTF-8 BOM is dropped and a
 * final line break does not start a record. Strict about quotes, so a malformed upload fails with its line
 * number instead of being read differently from what the author meant.
 * @throws RangeError `csv line N: …` for a stray or unterminated quote.
 */
export function parseCsv(text: string): CsvRecord[] {
  const s = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const records: CsvRecord[] = [];
  if (s === "") return records;
  let i = 0;
  let line = 1;
  let fields: string[] = [];
  let recordLine = 1;
  // Consumes the line break at i (CRLF, LF or CR).
  const lineBreak = (): void => {
    i += s[i] === "\r" && s[i + 1] === "\n" ? 2 : 1;
    line++;
  };
  const isBreak = (c: string | undefined): boolean => c === "\r" || c === "\n";
  for (;;) {
    let field = "";
    if (s[i] === '"') {
      const openedOn = line;
      i++;
      for (;;) {
        if (i >= s.length) throw fieldError(RangeError, `csv line ${openedOn}`, "unterminated quoted field");
        if (s[i] === '"') {
          if (s[i + 1] !== '"') break;
          field += '"';
          i += 2;
        } else if (isBreak(s[i])) {
          const start = i;
          lineBreak();
          field += s.slice(start, i);
        } else field += s[i++];
      }
      i++; // the closing quote
      if (i < s.length && s[i] !== "," && !isBreak(s[i])) {
        throw fieldError(
          RangeError,
          `csv line ${line}`,
          'unexpected character after a closing quote (write a quote inside a quoted field as "")',
        );
      }
    } else {
      while (i < s.length && s[i] !== "," && !isBreak(s[i])) {
        if (s[i] === '"')
          throw fieldError(
            RangeError,
            `csv line ${line}`,
            'a quote inside an unquoted field (quote the whole field and write the inner quote as "")',
          );
        field += s[i++];
      }
    }
    fields.push(field);
    if (s[i] === ",") {
      i++;
      continue;
    }
    records.push({ fields, line: recordLine });
    fields = [];
    if (i >= s.length) break;
    lineBreak();
    // A final line break ends the last record; it does not open an empty one.
    if (i >= s.length) break;
    recordLine = line;
  }
  return records;
}

/** Options of {@link parseCsvDataset}. */
export interface CsvDatasetOptions extends CustomDatasetOptions {
  /**
   * Our §9.5 [D] extension: read a `perturbations` column holding a JSON array of strings, or values separated
   * by `|`. Off by default, matching the original, whose CSV rows carry no perturbations (RS skipped).
   */
  perturbationsColumn?: boolean;
}

function csvPerturbations(field: string, cell: string): string[] | undefined {
  const t = pyStrip(cell);
  if (t === "") return undefined;
  if (t.startsWith("[")) {
    let v: unknown;
    try {
      v = JSON.parse(t);
    } catch (e) {
      throw fieldError(RangeError, field, `invalid JSON array (${(e as Error).message})`);
    }
    return stringArray(field, v);
  }
  return t.split("|").map(pyStrip);
}

/**
 * CSV dataset (§9.5): a header row, then one row per item; only the columns `question` and `answer` are read
 * (plus `perturbations` behind {@link CsvDatasetOptions.perturbationsColumn}). Rows become
 * `{id: "q0000"…, question, answer, type: "reasoning"}`. Blank lines are skipped; cells are stripped.
 * @throws RangeError / TypeError naming the row, e.g. `rows[3].answer: required (csv line 5)`.
 */
export function parseCsvDataset(text: string, opts: CsvDatasetOptions = {}): DatasetItem[] {
  const records = parseCsv(text).filter((r) => !(r.fields.length === 1 && pyStrip(r.fields[0]) === ""));
  if (records.length === 0) throw fieldError(RangeError, "csv", "empty (expected a header row with question,answer)");
  const [header, ...rows] = records;
  const names = header.fields.map(pyStrip);
  names.forEach((n, j) => {
    if (n !== "" && names.indexOf(n) !== j)
      throw fieldError(RangeError, "csv header", `duplicate column ${JSON.stringify(n)}`);
  });
  const col = (name: string): number => names.indexOf(name);
  for (const required of ["question", "answer"]) {
    if (col(required) < 0)
      throw fieldError(
        RangeError,
        "csv header",
        `missing column ${JSON.stringify(required)} (found ${names.map((n) => JSON.stringify(n)).join(", ")})`,
      );
  }
  const pCol = opts.perturbationsColumn ? col("perturbations") : -1;
  if (rows.length === 0) throw fieldError(RangeError, "csv", "no data rows");
  const items = rows.map((r, i): DatasetItem => {
    const where = `(csv line ${r.line})`;
    if (r.fields.length !== names.length) {
      throw fieldError(
        RangeError,
        `rows[${i}]`,
        `expected ${names.length} fields like the header, found ${r.fields.length} ${where}`,
      );
    }
    const cell = (name: string): string => {
      const v = pyStrip(r.fields[col(name)]);
      if (v === "") throw fieldError(RangeError, `rows[${i}].${name}`, `required ${where}`);
      return v;
    };
    const item: DatasetItem = {
      id: `q${pad4(i)}`,
      question: cell("question"),
      answer: cell("answer"),
      type: "reasoning",
    };
    if (pCol >= 0) {
      const p = csvPerturbations(`rows[${i}].perturbations`, r.fields[pCol]);
      if (p !== undefined) item.perturbations = p;
    }
    if (opts.name !== undefined) item.dataset = opts.name;
    return item;
  });
  return sampleItems(items, opts);
}

// ---------------------------------------------------------------------------------------------------------
// Public benchmarks. Their loaders take the split's rows in dataset order (e.g. from a pre-fetched HF export).
// ---------------------------------------------------------------------------------------------------------

/** Options of the benchmark loaders; defaults are the original's (seed 42, 250 samples). */
export interface BenchmarkOptions {
  seed?: bigint | number;
  numSamples?: number;
  /** Perturbation backend (§9.4 [D]); without one every slot is "" and the items are left out of RS. */
  perturb?: PerturbFn;
}

const perturbationsFor = (question: string, perturb: PerturbFn | undefined): string[] =>
  normalizePerturbations(question, perturb?.(question));

function rowObject(at: string, row: unknown): Record<string, unknown> {
  if (!isPlainObject(row)) throw fieldError(TypeError, at, "must be an object");
  return row;
}

function rowString(field: string, v: unknown): string {
  if (v === undefined || v === null) throw fieldError(TypeError, field, "required");
  if (typeof v !== "string") throw fieldError(TypeError, field, `must be a string, got ${typeof v}`);
  return v;
}

// Python `\d` in a str pattern is any Unicode decimal digit, so "٣" counts, as in the original.
const GSM8K_FINAL = new RegExp(`####[${PY_WS}]*([\\p{Nd},.\\-]+)`, "u");
const GSM8K_NUMBERS = /[\p{Nd},]+\.?\p{Nd}*/gu;

/**
 * GSM8K gold (§9.1): the token after `####` with every comma removed; else the last number-like run in the
 * solution (commas removed); else the stripped solution. Like [C], the "number" patterns also accept a lone
 * comma or dash, which then yields "" or "-".
 */
export function extractGsm8kAnswer(solution: string): string {
  const m = GSM8K_FINAL.exec(solution);
  if (m) return pyStrip(m[1].replaceAll(",", ""));
  const numbers = solution.match(GSM8K_NUMBERS);
  if (numbers) return numbers[numbers.length - 1].replaceAll(",", "");
  return pyStrip(solution);
}

/**
 * GSM8K (§9.1): `rows` is the `main`/`test` split in order (`{question, answer}` where answer is the worked
 * solution). Samples `shuffle(range(len))[:numSamples]`; items are `gsm8k_0000`… with the extracted gold and
 * the solution kept as `full_solution`.
 */
export function loadGsm8k(rows: readonly unknown[], opts: BenchmarkOptions = {}): DatasetItem[] {
  const checked = rows.map((row, i) => {
    const r = rowObject(`rows[${i}]`, row);
    return {
      question: rowString(`rows[${i}].question`, r.question),
      solution: rowString(`rows[${i}].answer`, r.answer),
    };
  });
  return sampleIndices(checked.length, opts.numSamples ?? 250, opts.seed ?? 42).map((raw, idx) => {
    const { question, solution } = checked[raw];
    const q = pyStrip(question);
    return {
      id: `gsm8k_${pad4(idx)}`,
      question: q,
      answer: extractGsm8kAnswer(solution),
      full_solution: solution,
      type: "reasoning",
      dataset: "gsm8k",
      perturbations: perturbationsFor(q, opts.perturb),
    };
  });
}

/** The nine MMLU subjects of §9.2, in sampling order. */
export const MMLU_SUBJECTS: readonly string[] = [
  "logical_fallacies",
  "formal_logic",
  "abstract_algebra",
  "elementary_mathematics",
  "high_school_mathematics",
  "college_mathematics",
  "high_school_statistics",
  "conceptual_physics",
  "philosophy",
];

const CHOICE_LABELS = ["A", "B", "C", "D"] as const;

/**
 * MMLU prompt (§9.2): the question, one `<Letter>. <choice>` line per option, and a closing line asking for a
 * letter, joined by "\n". The closing line is the original's own text, so model outputs stay comparable.
 */
export function formatMmluQuestion(question: string, choices: readonly string[]): string {
  const lines = [
    question,
    ...choices.slice(0, 4).map((c, i) => `${CHOICE_LABELS[i]}. ${c}`),
    "Answer with A, B, C, or D.",
  ];
  return lines.join("\n");
}

/** Options of {@link loadMmlu}. */
export interface MmluOptions extends BenchmarkOptions {
  /** Subjects in sampling order (default {@link MMLU_SUBJECTS}). */
  subjects?: readonly string[];
}

function mmluAnswerIndex(field: string, v: unknown, nChoices: number): number {
  let idx: number | undefined;
  if (typeof v === "number" && Number.isInteger(v)) idx = v;
  else if (typeof v === "string" && /^\s*\d+\s*$/.test(v)) idx = Number(v.trim());
  if (idx === undefined) throw fieldError(TypeError, field, "must be the index of the correct choice (0-3)");
  if (idx < 0 || idx >= nChoices)
    throw fieldError(RangeError, field, `index ${idx} is outside the ${nChoices} choices`);
  return idx;
}

/**
 * MMLU (§9.2): `rowsBySubject` maps a subject to its `test` rows (`{question, choices, answer: index}`) in order;
 * a subject that is absent is skipped, as when the original fails to load one, but still counts in
 * per_subject = max(1, floor(numSamples / subjects.length)). One RNG shuffles each subject's indices in subject
 * order (keeping per_subject), then shuffles all collected items; the first numSamples become `mmlu_0000`….
 *
 * Perturbed stems are re-formatted with the original choices; unlike [C], an empty stem stays an empty slot
 * rather than becoming a prompt made only of the options (reference README, "§9.2").
 */
export function loadMmlu(
  rowsBySubject: Readonly<Record<string, readonly unknown[] | undefined>> | ReadonlyMap<string, readonly unknown[]>,
  opts: MmluOptions = {},
): DatasetItem[] {
  const subjects = opts.subjects ?? MMLU_SUBJECTS;
  if (subjects.length === 0) throw fieldError(RangeError, "subjects", "must not be empty");
  const numSamples = checkCount("num_samples", opts.numSamples ?? 250);
  const rowsOf = (s: string): readonly unknown[] | undefined =>
    rowsBySubject instanceof Map
      ? rowsBySubject.get(s)
      : Object.hasOwn(rowsBySubject, s)
        ? (rowsBySubject as Record<string, readonly unknown[] | undefined>)[s]
        : undefined;
  const rng = new PyRandom(opts.seed ?? 42);
  const perSubject = Math.max(1, Math.floor(numSamples / subjects.length));
  const collected: Record<string, unknown>[] = [];
  for (const subject of subjects) {
    const rows = rowsOf(subject);
    if (rows === undefined) continue;
    const indices = Array.from({ length: rows.length }, (_, i) => i);
    rng.shuffle(indices);
    for (const raw of indices.slice(0, perSubject)) {
      const at = `${subject}[${raw}]`;
      const r = rowObject(at, rows[raw]);
      const question = rowString(`${at}.question`, r.question);
      const choices = stringArray(`${at}.choices`, r.choices);
      if (choices.length < 2 || choices.length > 4)
        throw fieldError(RangeError, `${at}.choices`, `must hold 2 to 4 options, found ${choices.length}`);
      const answer = CHOICE_LABELS[mmluAnswerIndex(`${at}.answer`, r.answer, choices.length)];
      collected.push({
        question: formatMmluQuestion(question, choices),
        answer,
        raw_question: question,
        choices,
        subject,
        type: "reasoning",
        dataset: "mmlu",
        perturbations: perturbationsFor(question, opts.perturb).map((stem) =>
          stem === "" ? "" : formatMmluQuestion(stem, choices),
        ),
      });
    }
  }
  rng.shuffle(collected);
  return collected.slice(0, numSamples).map((item, i) => ({ id: `mmlu_${pad4(i)}`, ...item }) as DatasetItem);
}

/**
 * StrategyQA gold (§9.3): booleans map to yes/no; strings and numbers are lower-cased and stripped, then "yes",
 * "true", "1" → yes and "no", "false", "0" → no. [C] maps anything else silently to "no"; we reject it, since a
 * malformed gold would otherwise score as a real one.
 */
export function strategyQaAnswer(raw: unknown, field = "answer"): "yes" | "no" {
  if (typeof raw === "boolean") return raw ? "yes" : "no";
  if (typeof raw === "string" || typeof raw === "number") {
    const s = pyStrip(String(raw).toLowerCase());
    if (s === "yes" || s === "true" || s === "1") return "yes";
    if (s === "no" || s === "false" || s === "0") return "no";
  }
  throw fieldError(RangeError, field, `must be yes/no or a boolean, got ${JSON.stringify(raw) ?? String(raw)}`);
}

/**
 * StrategyQA (§9.3, ChilleD/StrategyQA `test`, 687 rows): rows `{question, answer (or gold), facts?}` in order.
 * Sampled like GSM8K; items are `strategyqa_0000`… with a yes/no gold and the facts kept.
 */
export function loadStrategyQa(rows: readonly unknown[], opts: BenchmarkOptions = {}): DatasetItem[] {
  const checked = rows.map((row, i) => {
    const r = rowObject(`rows[${i}]`, row);
    const key = Object.hasOwn(r, "answer") ? "answer" : "gold";
    const facts = r.facts === undefined || r.facts === null ? [] : stringArray(`rows[${i}].facts`, r.facts);
    if (r[key] === undefined || r[key] === null) throw fieldError(TypeError, `rows[${i}].answer`, "required");
    return {
      question: rowString(`rows[${i}].question`, r.question),
      answer: strategyQaAnswer(r[key], `rows[${i}].${key}`),
      facts,
    };
  });
  return sampleIndices(checked.length, opts.numSamples ?? 250, opts.seed ?? 42).map((raw, idx) => {
    const { question, answer, facts } = checked[raw];
    const q = pyStrip(question);
    return {
      id: `strategyqa_${pad4(idx)}`,
      question: q,
      answer,
      facts,
      type: "reasoning",
      dataset: "strategyqa",
      perturbations: perturbationsFor(q, opts.perturb),
    };
  });
}
