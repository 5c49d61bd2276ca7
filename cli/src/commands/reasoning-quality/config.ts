// The original's config.yaml (llm-reasoning-quality / RQEval: `experiment`, `models`, `datasets`,
// `metrics`, `aggregation`, `max_workers`) read into a POST /v1/reasoning-quality/runs request. Everything
// is checked here, keys included, before anything is sent; a problem is one line naming the config entry.
import { existsSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import type { LsModelBackend, ReasoningQualityRunRequest, SsEmbeddingsBackend } from "@assay/sdk";
import { CliError } from "../../errors.ts";
import { isRecord } from "../../io.ts";
import { providerFromEnv } from "../../model-keys.ts";
import { formatOf, type FileUpload, type Format } from "./dataset-file.ts";

type ModelRequest = ReasoningQualityRunRequest["models"][number];
type DatasetRef = ReasoningQualityRunRequest["datasets"][number];

/** Where each model type is served OpenAI-compatibly, and the variables its key is read from by default. */
export const ENDPOINTS = {
  openai: { base_url: "https://api.openai.com/v1", keys: ["OPENAI_API_KEY", "OPENROUTER_API_KEY"] }, // read by providerFromEnv
  anthropic: { base_url: "https://api.anthropic.com/v1/", keys: ["ANTHROPIC_API_KEY"] },
  gemini: {
    base_url: "https://generativelanguage.googleapis.com/v1beta/openai/",
    keys: ["GOOGLE_API_KEY", "GEMINI_API_KEY"],
  },
  deepseek: { base_url: "https://api.deepseek.com/v1", keys: ["DEEPSEEK_API_KEY"] },
} as const;
type ApiType = keyof typeof ENDPOINTS;
const MODEL_TYPES = [...Object.keys(ENDPOINTS), "mock"];

/** The seven strategies of both weight presets (paper-v8 and 1.1.4), as the API computes them. */
export const PRESET_STRATEGIES = [
  "balanced",
  "safety_priority",
  "accuracy_priority",
  "efficiency_priority",
  "medical_triage",
  "legal_compliance",
  "edge_device",
];

/** The original's defaults where our API's differ: max_tokens 512 in its model builders, mock accuracy 0.8. */
const ORIGINAL_MAX_TOKENS = 512;
const ORIGINAL_MOCK_ACCURACY = 0.8;
const BENCHMARK_SAMPLES = 250;

export type PlannedModel = {
  request: ModelRequest;
  type: string;
  /** For people: the simulator, or the endpoint and where its key came from. */
  endpoint: string;
};

export type PlannedDataset =
  | { kind: "ref"; name: string; type: string; ref: DatasetRef; count?: number }
  /** `defaultSamples`: the original's sample size for a benchmark, applied when the file has more rows. */
  | { kind: "file"; name: string; type: string; upload: FileUpload; defaultSamples?: number };

export type RqPlan = {
  configPath: string;
  /** experiment.name: the prefix of the outputs folder. */
  experiment: string;
  /** experiment.output_dir, relative to the working directory as the original's. */
  outputDir: string;
  models: PlannedModel[];
  datasets: PlannedDataset[];
  /** The rest of the request: K, P, matcher, LS/SS backends, preset, strategies, seed, concurrency. */
  request: Omit<ReasoningQualityRunRequest, "models" | "datasets">;
  /** What the config asks for that is done differently here, said once in the header. */
  notes: string[];
};

class ConfigReader {
  readonly path: string;
  readonly env: NodeJS.ProcessEnv;
  constructor(path: string, env: NodeJS.ProcessEnv) {
    this.path = path;
    this.env = env;
  }

  fail(where: string, message: string): never {
    throw new CliError(`${this.path}: ${where}: ${message}`);
  }

  obj(v: unknown, where: string): Record<string, unknown> {
    if (v === undefined || v === null) return {};
    if (!isRecord(v)) this.fail(where, "must be a mapping");
    return v;
  }

  str(v: unknown, where: string): string | undefined {
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "string" && typeof v !== "number") this.fail(where, "must be a string");
    return String(v);
  }

  num(v: unknown, where: string, opts: { int?: boolean; min?: number; max?: number } = {}): number | undefined {
    if (v === undefined || v === null) return undefined;
    const n = typeof v === "string" && v.trim() !== "" ? Number(v) : v;
    if (typeof n !== "number" || !Number.isFinite(n)) this.fail(where, `must be a number, got ${JSON.stringify(v)}`);
    if (opts.int && !Number.isInteger(n)) this.fail(where, `must be an integer, got ${n}`);
    if (opts.min !== undefined && n < opts.min) this.fail(where, `must be at least ${opts.min}, got ${n}`);
    if (opts.max !== undefined && n > opts.max) this.fail(where, `must be at most ${opts.max}, got ${n}`);
    return n;
  }

  bool(v: unknown, where: string): boolean | undefined {
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "boolean") this.fail(where, "must be true or false");
    return v;
  }

  /** A key named by `api_key_env` must be set; otherwise the first set variable of `fallbacks`. */
  key(where: string, apiKeyEnv: string | undefined, fallbacks: readonly string[]): { key?: string; from?: string } {
    if (apiKeyEnv) {
      const key = this.env[apiKeyEnv];
      if (!key) throw new CliError(`${apiKeyEnv} is not set (api_key_env of ${where} in ${this.path})`);
      return { key, from: apiKeyEnv };
    }
    for (const name of fallbacks) if (this.env[name]) return { key: this.env[name], from: name };
    return {};
  }

  /** A file named by the config: relative to the working directory (the original's), else to the config's folder. */
  file(p: string): string {
    if (isAbsolute(p) || existsSync(p)) return p;
    const beside = join(dirname(this.path), p);
    return existsSync(beside) ? beside : p;
  }
}

function modelOf(r: ConfigReader, raw: unknown, i: number, deterministic: boolean): PlannedModel {
  const m = r.obj(raw, `models[${i}]`);
  const p = r.obj(m.params, `models[${i}].params`);
  const type = r.str(m.type, `models[${i}].type`) ?? "mock"; // the original's default type
  const name =
    r.str(m.name, `models[${i}].name`) ?? r.str(p.model_id, `models[${i}].params.model_id`) ?? `${type}-${i + 1}`;
  const where = `models[${i}] (${name})`;
  const timeout = r.num(p.timeout, `${where}.params.timeout`, { min: 1, max: 240 });

  if (type === "local") {
    r.fail(
      where,
      "type local (a HuggingFace model on this machine) cannot run on an assay server; serve it with an OpenAI-compatible server (vLLM, llama.cpp, Ollama, LM Studio …) and use type: openai with params.base_url pointing at it",
    );
  }
  if (type === "mock") {
    const sim = r.obj(p.simulator, `${where}.params.simulator`);
    const accuracy =
      r.num(p.accuracy_level ?? sim.accuracy, `${where}.params.accuracy_level`, { min: 0, max: 1 }) ??
      ORIGINAL_MOCK_ACCURACY;
    return {
      type,
      endpoint: `simulator (accuracy ${accuracy})`,
      request: { name, model: "sim:mock", simulator: { ...sim, accuracy }, ...(timeout ? { timeout_s: timeout } : {}) },
    };
  }
  if (!(type in ENDPOINTS))
    r.fail(
      where,
      `unknown type '${type}' (one of ${MODEL_TYPES.join(", ")}, or openai with params.base_url for any OpenAI-compatible endpoint)`,
    );
  const t = type as ApiType;
  const model = r.str(p.model_id, `${where}.params.model_id`) ?? r.fail(where, "params.model_id is required");
  const baseUrl = r.str(p.base_url, `${where}.params.base_url`);
  const apiKeyEnv = r.str(p.api_key_env ?? m.api_key_env, `${where}.params.api_key_env`);

  let base_url: string;
  let found: { key?: string; from?: string };
  if (apiKeyEnv) r.key(where, apiKeyEnv, []); // named but unset: say which variable, before anything else
  if (t === "openai") {
    // OpenAI's own rules (OPENAI_API_KEY, else OpenRouter's key and URL), as the harness resolves them.
    const provider = providerFromEnv({ baseUrl, apiKeyEnv, env: r.env });
    base_url = provider.base_url;
    const from = apiKeyEnv ?? (provider.api_key === r.env.OPENAI_API_KEY ? "OPENAI_API_KEY" : "OPENROUTER_API_KEY");
    found = provider.api_key ? { key: provider.api_key, from } : {};
  } else {
    base_url = baseUrl ?? ENDPOINTS[t].base_url;
    found = r.key(where, apiKeyEnv, ENDPOINTS[t].keys);
  }
  // A base_url of one's own may be a keyless local server; the providers' own endpoints never are.
  if (!found.key && !baseUrl)
    throw new CliError(
      `${ENDPOINTS[t].keys.join(" or ")} is not set (the key of ${where} in ${r.path}; or name another variable with params.api_key_env)`,
    );

  // The original: an explicit temperature > 0 wins; else `deterministic` (its default) means 0; else the API's 0.7.
  const explicit = r.num(p.temperature, `${where}.params.temperature`, { min: 0, max: 2 });
  const temperature = explicit !== undefined && explicit > 0 ? explicit : deterministic ? 0 : explicit;
  const maxTokens =
    r.num(p.max_tokens ?? p.max_new_tokens, `${where}.params.max_tokens`, { int: true, min: 1, max: 32_768 }) ??
    ORIGINAL_MAX_TOKENS;
  return {
    type,
    endpoint: `${base_url}${found.key ? ` (key from ${found.from})` : " (no key)"}`,
    request: {
      name,
      model,
      provider: found.key ? { base_url, api_key: found.key } : { base_url },
      max_tokens: maxTokens,
      ...(temperature !== undefined ? { temperature } : {}),
      ...(timeout ? { timeout_s: timeout } : {}),
    },
  };
}

const DATASET_TYPES = ["synthetic", "json", "csv", "gsm8k", "strategyqa", "mmlu", "uploaded"];

function datasetOf(r: ConfigReader, raw: unknown, i: number): PlannedDataset {
  const d = r.obj(raw, `datasets[${i}]`);
  const p = r.obj(d.params, `datasets[${i}].params`);
  const declared = r.str(d.type, `datasets[${i}].type`);
  const named = r.str(d.name, `datasets[${i}].name`);
  const id = r.str(p.id ?? d.id, `datasets[${i}].params.id`);
  // The README's short form `{name: "gsm8k", params: {…}}` names the type by the name.
  const type = declared ?? (id ? "uploaded" : named && DATASET_TYPES.includes(named) ? named : "synthetic");
  const name = named ?? type;
  const where = `datasets[${i}] (${name})`;
  const numSamples = r.num(p.num_samples, `${where}.params.num_samples`, { int: true, min: 1 });
  const seed = r.num(p.seed, `${where}.params.seed`, { int: true, min: 0 }) ?? 42;

  if (type === "synthetic") {
    const count = (k: string, dflt: number) =>
      r.num(p[k], `${where}.params.${k}`, { int: true, min: 0, max: 1000 }) ?? dflt;
    // The original's synthetic builder: 20 / 10 / 10 unless given (it reads no num_samples).
    const synthetic = {
      seed,
      num_reasoning: count("num_reasoning", 20),
      num_adversarial: count("num_adversarial", 10),
      num_robustness: count("num_robustness", 10),
    };
    return {
      kind: "ref",
      name,
      type,
      ref: { synthetic },
      count: synthetic.num_reasoning + synthetic.num_adversarial + synthetic.num_robustness,
    };
  }
  if (type === "uploaded") {
    if (!id) r.fail(where, "type uploaded needs params.id (a ds_… id from `assay datasets upload`)");
    return { kind: "ref", name, type, ref: numSamples ? { id, num_samples: numSamples } : { id } };
  }
  if (!DATASET_TYPES.includes(type)) r.fail(where, `unknown type '${type}' (one of ${DATASET_TYPES.join(", ")})`);
  const path = r.str(p.path, `${where}.params.path`);
  if (!path) {
    const benchmark = ["gsm8k", "strategyqa", "mmlu"].includes(type);
    r.fail(
      where,
      benchmark
        ? `assay does not download ${type}: set params.path to a local file of its public rows (JSON or JSON Lines; MMLU: a JSON object of subject → rows)`
        : "params.path is required",
    );
  }
  const format: Format = type === "json" ? formatOf(path) : (type as Format);
  const upload: FileUpload = {
    path: r.file(path),
    name,
    format,
    seed,
    perturbationsColumn: r.bool(p.perturbations_column, `${where}.params.perturbations_column`),
  };
  // Benchmarks: the original samples 250 unless told; files of our own are taken whole unless told.
  if (format === "gsm8k" || format === "strategyqa" || format === "mmlu") {
    return {
      kind: "file",
      name,
      type,
      upload: { ...upload, numSamples },
      defaultSamples: numSamples ? undefined : BENCHMARK_SAMPLES,
    };
  }
  return { kind: "file", name, type, upload: { ...upload, numSamples } };
}

type Backend = { method?: unknown; model?: unknown; base_url?: unknown; api_key_env?: unknown; [k: string]: unknown };

/** `metrics.ls` / `metrics.ss` (our extension): a method name, or a model-backed method with its endpoint. */
function backendOf<T extends LsModelBackend | SsEmbeddingsBackend>(
  r: ConfigReader,
  raw: unknown,
  where: string,
  method: T["method"],
): string | T | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw === "string") return raw;
  const b = r.obj(raw, where) as Backend;
  const { method: _m, base_url, api_key_env, model, ...rest } = b;
  const modelName = r.str(model, `${where}.model`) ?? r.fail(where, "model is required");
  const out = { ...rest, method, model: modelName } as T;
  if (!modelName.startsWith("sim:")) {
    const provider = providerFromEnv({
      baseUrl: r.str(base_url, `${where}.base_url`),
      apiKeyEnv: r.str(api_key_env, `${where}.api_key_env`),
      env: r.env,
    });
    out.provider = provider;
  }
  return out;
}

/** Reads a parsed config.yaml into the plan of a run (nothing is sent). */
export function planRun(config: unknown, configPath: string, env: NodeJS.ProcessEnv = process.env): RqPlan {
  const r: ConfigReader = new ConfigReader(configPath, env); // typed, so r.fail() narrows
  if (!isRecord(config)) r.fail("top level", "must be a mapping with experiment, models and datasets");
  const exp = r.obj(config.experiment, "experiment");
  const metrics = r.obj(config.metrics, "metrics");
  const aggregation = r.obj(config.aggregation, "aggregation");
  const notes: string[] = [];

  const deterministic = r.bool(exp.deterministic, "experiment.deterministic") ?? true; // the original's default
  const rawModels = config.models ?? r.fail("models", "at least one model is required");
  if (!Array.isArray(rawModels) || rawModels.length === 0) r.fail("models", "must be a list of at least one model");
  const models = rawModels.map((m, i) => modelOf(r, m, i, deterministic));

  const rawDatasets = config.datasets ?? r.fail("datasets", "at least one dataset is required");
  if (!Array.isArray(rawDatasets) || rawDatasets.length === 0)
    r.fail("datasets", "must be a list of at least one dataset");
  const datasets = rawDatasets.map((d, i) => datasetOf(r, d, i));

  const K = r.num(metrics.consistency_runs, "metrics.consistency_runs", { int: true, min: 1, max: 10 }) ?? 3;
  const P =
    r.num(metrics.robustness_perturbations, "metrics.robustness_perturbations", { int: true, min: 0, max: 10 }) ?? 3;
  const stability = r.num(metrics.stability_runs, "metrics.stability_runs", { int: true, min: 1 });
  if (stability !== undefined && stability !== K) {
    r.fail(
      "metrics.stability_runs",
      `${stability} differs from consistency_runs ${K}; assay scores CS and SS over the same K runs, so set them equal`,
    );
  }
  const matcher = r.str(metrics.cq_matcher, "metrics.cq_matcher");
  const ls = backendOf<LsModelBackend>(r, metrics.ls, "metrics.ls", "model");
  const ss = backendOf<SsEmbeddingsBackend>(r, metrics.ss, "metrics.ss", "embeddings");
  if (metrics.nli_model && ls === undefined)
    notes.push(
      `metrics.nli_model (${metrics.nli_model}) cannot run here: LS uses the lexical heuristic (set metrics.ls for a checker model)`,
    );
  if (metrics.bertscore_model && ss === undefined)
    notes.push(
      `metrics.bertscore_model (${metrics.bertscore_model}) cannot run here: SS uses Jaccard (set metrics.ss for an embeddings model)`,
    );

  const strategies = r.obj(aggregation.strategies, "aggregation.strategies");
  for (const [name, weights] of Object.entries(strategies)) {
    for (const [k, v] of Object.entries(r.obj(weights, `aggregation.strategies.${name}`)))
      r.num(v, `aggregation.strategies.${name}.${k}`);
  }
  const preset = r.str(aggregation.preset, "aggregation.preset");
  const seed = r.num(exp.seed, "experiment.seed", { int: true, min: 0, max: 2 ** 31 - 1 });
  const concurrency = r.num(config.max_workers, "max_workers", { int: true, min: 1 });

  const request: RqPlan["request"] = {
    K,
    P,
    strategies: strategies as Record<string, Record<string, number>>,
    ...(matcher ? { matcher: matcher as ReasoningQualityRunRequest["matcher"] } : {}),
    ...(ls !== undefined ? { ls: ls as ReasoningQualityRunRequest["ls"] } : {}),
    ...(ss !== undefined ? { ss: ss as ReasoningQualityRunRequest["ss"] } : {}),
    ...(preset ? { preset: preset as ReasoningQualityRunRequest["preset"] } : {}),
    ...(seed !== undefined ? { seed } : {}),
    ...(concurrency !== undefined ? { concurrency } : {}),
  };
  return {
    configPath,
    experiment: r.str(exp.name, "experiment.name") ?? "exp", // the original's default
    outputDir: r.str(exp.output_dir, "experiment.output_dir") ?? "outputs",
    models,
    datasets,
    request,
    notes,
  };
}

/** The strategies a run of this plan will score: the preset's seven and the config's own. */
export function strategiesOf(plan: RqPlan): string[] {
  return [...new Set([...PRESET_STRATEGIES, ...Object.keys(plan.request.strategies ?? {})])];
}
