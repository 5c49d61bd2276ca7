// Heretix's run config (run.yaml) read into an rpl run request. Heretix loads its file into a
// dataclass, so an unknown key stops the run; we do the same, naming the key and the file. Values are
// passed on as written: the API checks them and names the field it refuses.
import type { RplRunRequest } from "@assay/sdk";
import { CliError } from "../../errors.ts";
import { isRecord, readJson, readYaml } from "../../io.ts";
import { providerFromEnv } from "../../model-keys.ts";

/** Heretix's RunConfig keys the API takes as they are. */
const HERETIX_KEYS = [
  "claim",
  "model",
  "prompt_version",
  "K",
  "R",
  "T",
  "B",
  "seed",
  "max_output_tokens",
  "no_cache",
] as const;

/** Keys of ours, beside Heretix's: the endpoint and key (as the other tools' configs), run knobs. */
const ASSAY_KEYS = ["base_url", "api_key_env", "preset", "concurrency", "timeout_s", "simulator"] as const;

/** Heretix keys with no counterpart in the API: what happens to each, and why. */
const UNSUPPORTED: Record<string, { error: boolean; why: string }> = {
  // The server refuses a prompt over its own cap (set for its banks) with a 400 naming `claim`.
  max_prompt_chars: { error: false, why: "ignored: the server applies its own prompt cap" },
  prompts_file: {
    error: true,
    why: "not read here: push the bank once with `assay prompts push FILE`, then name it in prompt_version as name@version",
  },
  claims_file: { error: true, why: "not supported (batch of claims): write one config per claim" },
};

/** Heretix's default model (its RunConfig), used when the config names none. */
export const DEFAULT_MODEL = "gpt-5";

export type RunConfigFile = Record<string, unknown> & { model: string };

/** Reads run.yaml (or run.json, by its suffix, as Heretix does) and checks its keys. */
export async function readRunConfig(path: string, warn: (line: string) => void): Promise<RunConfigFile> {
  const data = /\.json$/i.test(path) ? await readJson(path) : await readYaml(path);
  if (!isRecord(data))
    throw new CliError(
      `${path}: expected a mapping of settings (claim, model, K, R, …), got ${data === null ? "nothing" : Array.isArray(data) ? "a list" : typeof data}`,
    );
  const known = new Set<string>([...HERETIX_KEYS, ...ASSAY_KEYS]);
  for (const key of Object.keys(data)) {
    const unsupported = UNSUPPORTED[key];
    if (unsupported?.error) throw new CliError(`${path}: ${key} is ${unsupported.why}`);
    if (unsupported) {
      warn(`${path}: ${key} is ${unsupported.why}`);
      delete data[key];
    } else if (!known.has(key)) throw new CliError(`${path}: unknown key '${key}' (known: ${[...known].join(", ")})`);
  }
  // A YAML integer past 2^53 has already lost digits; the seed is 64-bit, so ask for it as text.
  if (typeof data.seed === "number" && Number.isInteger(data.seed) && !Number.isSafeInteger(data.seed)) {
    throw new CliError(
      `${path}: seed is too large to read exactly as a number; write it in quotes ("${BigInt(data.seed)}" is what was read)`,
    );
  }
  return {
    ...data,
    model: typeof data.model === "string" ? data.model : (data.model ?? DEFAULT_MODEL),
  } as RunConfigFile;
}

export type Overrides = {
  claim?: string;
  model?: string;
  promptVersion?: string[];
  preset?: "auto";
  /** Heretix's --mock: the deterministic simulator instead of the model. */
  mock?: boolean;
};

/**
 * The request body: the config, then Heretix's environment (HERETIX_RPL_SEED when the config has no
 * seed, HERETIX_RPL_NO_CACHE), then the command line, which wins. A model that is not `sim:*` gets the
 * endpoint and key from the environment (`api_key_env` and `base_url` in the config choose them).
 */
export function requestBody(
  cfg: RunConfigFile,
  flags: Overrides,
  warn: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): RplRunRequest {
  const { base_url, api_key_env, ...rest } = cfg;
  const body: Record<string, unknown> = { ...rest };
  if (body.seed === undefined || body.seed === null) {
    delete body.seed;
    const fromEnv = env.HERETIX_RPL_SEED;
    // Heretix ignores a HERETIX_RPL_SEED that is not an integer; we say so.
    if (fromEnv !== undefined && /^\d{1,20}$/.test(fromEnv.trim())) body.seed = fromEnv.trim();
    else if (fromEnv !== undefined) warn(`HERETIX_RPL_SEED is not a non-negative integer ("${fromEnv}"); ignored`);
  }
  if (env.HERETIX_RPL_NO_CACHE) body.no_cache = true;
  if (body.T === null) delete body.T;
  if (flags.claim !== undefined) body.claim = flags.claim;
  if (flags.model !== undefined) body.model = flags.model;
  // One --prompt-version is a plain run; several are an A/B group (the API makes one run per version).
  // A config's list is sent as a list, as written.
  if (flags.promptVersion?.length)
    body.prompt_version = flags.promptVersion.length === 1 ? flags.promptVersion[0] : flags.promptVersion;
  if (flags.preset) body.preset = flags.preset;

  let model = String(body.model);
  if (flags.mock && !model.startsWith("sim:")) model = body.model = `sim:${model}`;
  if (!model.startsWith("sim:")) {
    const explicitUrl = typeof base_url === "string" ? base_url : undefined;
    const provider = providerFromEnv({
      baseUrl: explicitUrl,
      apiKeyEnv: typeof api_key_env === "string" ? api_key_env : undefined,
      env,
    });
    // As Heretix: a live run needs a key, unless the endpoint was chosen (a local server may take none).
    if (!provider.api_key && !explicitUrl && !env.OPENAI_BASE_URL) {
      throw new CliError(
        `OPENAI_API_KEY not set (required for live runs with model ${model}; a sim:* model or --mock needs none)`,
      );
    }
    body.provider = provider;
  }
  return body as RplRunRequest;
}
