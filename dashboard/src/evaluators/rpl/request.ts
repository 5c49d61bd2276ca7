// The rpl "New run" form's state and the request built from it: pure functions, no DOM, so the node
// tests can check that the form left as it opens asks for exactly what the API does by default.
import type { RplRunRequest } from "@assay/sdk";
import {
  isSimulated,
  list,
  modelFields,
  num,
  put,
  simulatorChoice,
  type ModelChoice,
} from "../../components/request.ts";

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
