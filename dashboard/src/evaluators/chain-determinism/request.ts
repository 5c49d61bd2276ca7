// The chain-determinism "New run" form's state and the request built from it: pure functions, no DOM, so the node
// tests can check that the form left as it opens asks for exactly what the API does by default.
import type { ChainDeterminismRunRequest, CreateSuiteRequest } from "@assay/sdk";
import {
  FormProblem,
  isSimulated,
  modelFields,
  num,
  put,
  simulatorChoice,
  type ModelChoice,
} from "../../components/request.ts";

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
  for (const key of [
    "n_queries",
    "n_replays",
    "temperature",
    "concurrency",
    "seed",
    "max_turns",
    "max_tokens",
    "min_success",
    "timeout_s",
  ] as const) {
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
  if (!data || typeof data !== "object" || Array.isArray(data))
    throw new FormProblem("suite file", `${fileName} must hold a JSON object: {"name", "suite": {…}}`);
  const fallbackName = fileName.replace(/\.json$/i, "") || "uploaded suite";
  const obj = data as Record<string, unknown>;
  if ("suite" in obj)
    return {
      ...obj,
      name: typeof obj.name === "string" && obj.name.trim() ? obj.name : fallbackName,
    } as CreateSuiteRequest;
  return { name: fallbackName, suite: obj as CreateSuiteRequest["suite"] };
}
