// The "New run" forms' state and the request bodies built from it: pure functions, no DOM, so the node
// tests can check that a form left as it opens asks for exactly what the API does by default.
//
// Numbers are kept as the text of their input. An empty field is left out of the request (the API's
// default applies); anything else is sent as a number when it reads as one, and as the text itself
// otherwise, so that the API, not the page, says what is wrong with it and names the field.
import type { ChainDeterminismRunRequest, CreateSuiteRequest, JudgeRunRequest, Provider, RplRunRequest } from "@assay/sdk";

/** A problem the page finds before asking the API (a file it cannot read): `path` names the field. */
export class FormProblem extends Error {
  readonly path: string;
  constructor(path: string, message: string) {
    super(`${path}: ${message}`);
    this.path = path;
  }
}

/** A number field's text as the request's value: undefined when empty, a number, or the text as typed. */
export function num(text: string): number | string | undefined {
  const t = text.trim();
  if (t === "") return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n : t;
}

/** A comma-separated list (labels, prompt versions), each entry trimmed, without empty entries. */
export function list(text: string): string[] {
  return text.split(/[,\n]/).map((s) => s.trim()).filter(Boolean);
}

/** Sets `key` only when `value` is defined: the request then carries only what the form says. */
function put<T extends object>(target: T, key: string, value: unknown): void {
  if (value !== undefined) (target as Record<string, unknown>)[key] = value;
}

// ---- the model: the simulator or a saved connection ------------------------------------------------

/**
 * Where a run's (or a critic's) model is called. `sim`: the built-in simulator, `simModel` its name
 * (`sim:<anything>`). `connection`: a saved provider connection (`/v1/providers`) by `connection`,
 * with `model` the name that endpoint expects.
 */
export type ModelChoice = { source: "sim" | "connection"; simModel: string; model: string; connection: string };

export function simulatorChoice(simModel: string): ModelChoice {
  return { source: "sim", simModel, model: "", connection: "" };
}

export function isSimulated(choice: ModelChoice): boolean {
  return choice.source === "sim";
}

/** `model` and `provider` of a request: `{model: "sim:…"}`, or `{model, provider: {connection}}`. */
export function modelFields(choice: ModelChoice): { model: string; provider?: Provider } {
  if (choice.source === "sim") return { model: choice.simModel.trim() };
  return { model: choice.model.trim(), provider: { connection: choice.connection } };
}

// ---- chain-determinism ----------------------------------------------------------------------------

export type ChainDeterminismFormState = {
  model: ModelChoice;
  /** `default` or an uploaded suite's id. */
  suite: string;
  n_queries: string;
  n_replays: string;
  temperature: string;
  concurrency: string;
  seed: string;
  /** Simulator only. */
  divergence: string;
  latency_ms: string;
  max_turns: string;
  max_tokens: string;
  min_success: string;
  timeout_s: string;
};

/** The form as it opens: the API's defaults (README, chain-determinism's field table). */
export const CHAIN_DETERMINISM_DEFAULTS: ChainDeterminismFormState = {
  model: simulatorChoice("sim:agent"),
  suite: "default",
  n_queries: "5",
  n_replays: "10",
  temperature: "0",
  concurrency: "",
  seed: "",
  divergence: "0.25",
  latency_ms: "0",
  max_turns: "10",
  max_tokens: "1024",
  min_success: "5",
  timeout_s: "60",
};

export function chainDeterminismRequest(f: ChainDeterminismFormState): ChainDeterminismRunRequest {
  const body = { ...modelFields(f.model), suite: f.suite || "default" } as ChainDeterminismRunRequest;
  for (const key of ["n_queries", "n_replays", "temperature", "concurrency", "seed", "max_turns", "max_tokens", "min_success", "timeout_s"] as const) {
    put(body, key, num(f[key]));
  }
  if (isSimulated(f.model)) {
    const simulator = {};
    put(simulator, "divergence", num(f.divergence));
    put(simulator, "latency_ms", num(f.latency_ms));
    if (Object.keys(simulator).length) body.simulator = simulator;
  }
  return body;
}

/**
 * A suite file as `createChainDeterminismSuite` takes it: the API's CreateSuiteRequest
 * (`{name, suite: {system_prompt, tools, stubs, queries, version?}}`, which is also what
 * `GET /suites/{id}` returns), or a bare suite object, named after the file. Throws a FormProblem
 * when the text is not a JSON object; everything else is the API's to check.
 */
export function parseSuiteFile(text: string, fileName: string): CreateSuiteRequest {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new FormProblem("suite file", `${fileName} is not JSON (${(err as Error).message})`);
  }
  if (!data || typeof data !== "object" || Array.isArray(data)) throw new FormProblem("suite file", `${fileName} must hold a JSON object: {"name", "suite": {…}}`);
  const fallbackName = fileName.replace(/\.json$/i, "") || "uploaded suite";
  const obj = data as Record<string, unknown>;
  if ("suite" in obj) return { ...obj, name: typeof obj.name === "string" && obj.name.trim() ? obj.name : fallbackName } as CreateSuiteRequest;
  return { name: fallbackName, suite: obj as CreateSuiteRequest["suite"] };
}

// ---- rpl ------------------------------------------------------------------------------------------

export type RplFormState = {
  claim: string;
  model: ModelChoice;
  /** One prompt bank version, or several (comma-separated) for an A/B group of runs. */
  prompt_versions: string;
  K: string;
  R: string;
  /** Empty: the whole bank (null). */
  T: string;
  B: string;
  /** The 64-bit bootstrap seed, as decimal text; empty: derived from the run's settings. */
  seed: string;
  preset: "" | "auto";
  max_output_tokens: string;
  no_cache: boolean;
  concurrency: string;
  timeout_s: string;
  latency_ms: string;
};

/** The form as it opens: the API's defaults (README, rpl's fields). */
export const RPL_DEFAULTS: RplFormState = {
  claim: "",
  model: simulatorChoice("sim:rpl"),
  prompt_versions: "rpl-assay-v1",
  K: "8",
  R: "2",
  T: "",
  B: "5000",
  seed: "",
  preset: "",
  max_output_tokens: "1024",
  no_cache: false,
  concurrency: "",
  timeout_s: "60",
  latency_ms: "0",
};

export function rplRequest(f: RplFormState): RplRunRequest {
  const body = { claim: f.claim, ...modelFields(f.model) } as RplRunRequest;
  const versions = list(f.prompt_versions);
  if (versions.length) body.prompt_version = versions.length === 1 ? versions[0] : versions;
  if (f.preset === "auto") {
    // The preset sets K, R and T stage by stage.
    body.preset = "auto";
  } else {
    put(body, "K", num(f.K));
    put(body, "R", num(f.R));
    body.T = (num(f.T) ?? null) as number | null;
  }
  put(body, "B", num(f.B));
  // A decimal string: the seed is 64-bit, past what a JSON number holds exactly.
  if (f.seed.trim()) body.seed = f.seed.trim();
  put(body, "max_output_tokens", num(f.max_output_tokens));
  if (f.no_cache) body.no_cache = true;
  put(body, "concurrency", num(f.concurrency));
  put(body, "timeout_s", num(f.timeout_s));
  if (isSimulated(f.model)) {
    const latency = num(f.latency_ms);
    if (latency !== undefined) body.simulator = { latency_ms: latency as number };
  }
  return body;
}

// ---- judge ----------------------------------------------------------------------------------------

export type CriticRow = {
  name: string;
  model: ModelChoice;
  /** Simulator only: the probability of a random label. */
  noise: string;
  /** `bank`: `prompt` ("name@version", "" for the API's default); `own`: system_prompt + prompt_template. */
  promptFrom: "bank" | "own";
  prompt: string;
  system_prompt: string;
  prompt_template: string;
  weight: string;
  temperature: string;
  max_tokens: string;
  timeout_s: string;
};

export type ItemRow = { id: string; query: string; expected: string };

export type Strategy = "majority" | "unanimous" | "weighted" | "first_disagreement";

export type JudgeFormState = {
  critics: CriticRow[];
  itemsFrom: "rows" | "jsonl";
  items: ItemRow[];
  jsonl: string;
  labels: string;
  strategy: Strategy;
  /** majority: labels that win a tie, in order. */
  priority: string;
  fallback: string;
  /** weighted only. */
  use_confidence: boolean;
  /** first_disagreement only. */
  disagree_label: string;
  contested_threshold: string;
  seed: string;
  concurrency: string;
};

/** A simulated critic with the API's defaults for everything but its name. */
export function newCritic(name: string, over: Partial<CriticRow> = {}): CriticRow {
  return {
    name,
    model: simulatorChoice("sim:critic"),
    noise: "0",
    promptFrom: "bank",
    prompt: "",
    system_prompt: "",
    prompt_template: "",
    weight: "1",
    temperature: "0",
    max_tokens: "2000",
    timeout_s: "60",
    ...over,
  };
}

export const DEFAULT_LABELS = "KEEP, REJECT, SPLIT, MERGE, UNCLEAR";

/**
 * The form as it opens: the README's example panel (a strict critic, a general one and a noisy one,
 * all simulated), one empty item, and the API's defaults for the rest.
 */
export const JUDGE_DEFAULTS: JudgeFormState = {
  critics: [newCritic("strict", { prompt: "strict-reviewer@1" }), newCritic("general"), newCritic("noisy", { noise: "0.5" })],
  itemsFrom: "rows",
  items: [{ id: "q1", query: "", expected: "" }],
  jsonl: "",
  labels: DEFAULT_LABELS,
  strategy: "majority",
  priority: "",
  fallback: "",
  use_confidence: true,
  disagree_label: "",
  contested_threshold: "0.4",
  seed: "0",
  concurrency: "",
};

type JudgeItem = JudgeRunRequest["items"][number];
type JudgeCritic = JudgeRunRequest["critics"][number];

/**
 * Items from JSONL, one JSON object per line as the CLI and cross-judge read them: `query`, `id` (or
 * `query_id`; default the query's first 80 characters), `context`, `expected`; `meta` is the caller's
 * and is not sent. Blank lines are skipped. Throws a FormProblem naming the line.
 */
export function parseItemsJsonl(text: string): JudgeItem[] {
  const items: JudgeItem[] = [];
  const lines = text.split(/\r?\n/);
  for (const [i, line] of lines.entries()) {
    if (!line.trim()) continue;
    const where = `items line ${i + 1}`;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (err) {
      throw new FormProblem(where, `not JSON (${(err as Error).message})`);
    }
    if (!row || typeof row !== "object" || Array.isArray(row)) throw new FormProblem(where, "each line is a JSON object with a query");
    const r = row as Record<string, unknown>;
    if (typeof r.query !== "string" || !r.query) throw new FormProblem(where, "query must be non-empty text");
    const id = r.id ?? r.query_id ?? Array.from(r.query).slice(0, 80).join("");
    if (typeof id !== "string") throw new FormProblem(where, "id must be text");
    const item: JudgeItem = { id, query: r.query };
    if (r.context !== undefined) item.context = r.context as JudgeItem["context"];
    if (r.expected !== undefined) item.expected = r.expected as string;
    items.push(item);
  }
  if (!items.length) throw new FormProblem("items", "no items: paste JSONL or upload a .jsonl file");
  return items;
}

function criticRequest(c: CriticRow): JudgeCritic {
  const out = { name: c.name.trim(), ...modelFields(c.model) } as JudgeCritic;
  if (c.promptFrom === "own") {
    // "" is a real value for the system prompt (send none); the template is required by then.
    out.system_prompt = c.system_prompt;
    out.prompt_template = c.prompt_template;
  } else if (c.prompt) {
    out.prompt = c.prompt;
  }
  for (const key of ["weight", "temperature", "max_tokens", "timeout_s"] as const) put(out, key, num(c[key]));
  if (isSimulated(c.model)) {
    const noise = num(c.noise);
    // A noise of 0 is what a simulated critic does without knobs: nothing to send.
    if (noise !== undefined && noise !== 0) out.simulator = { noise: noise as number };
  }
  return out;
}

export function judgeRequest(f: JudgeFormState): JudgeRunRequest {
  const items =
    f.itemsFrom === "jsonl"
      ? parseItemsJsonl(f.jsonl)
      : f.items.map((r) => {
          const item: JudgeItem = { id: r.id.trim(), query: r.query };
          if (r.expected.trim()) item.expected = r.expected.trim();
          return item;
        });
  const voting: NonNullable<JudgeRunRequest["voting"]> = { strategy: f.strategy };
  // Each strategy takes only its own options (the API refuses the others, naming them).
  if (f.strategy === "majority" && list(f.priority).length) voting.priority = list(f.priority);
  if (f.fallback.trim()) voting.fallback = f.fallback.trim();
  if (f.strategy === "weighted" && !f.use_confidence) voting.use_confidence = false;
  if (f.strategy === "first_disagreement" && f.disagree_label.trim()) voting.disagree_label = f.disagree_label.trim();
  const body: JudgeRunRequest = { items, critics: f.critics.map(criticRequest), voting };
  if (list(f.labels).length) body.labels = list(f.labels);
  put(body, "contested_threshold", num(f.contested_threshold));
  put(body, "seed", num(f.seed));
  put(body, "concurrency", num(f.concurrency));
  return body;
}
