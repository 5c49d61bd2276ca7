// Model keys come from the environment, as in the original tools; a key is sent to the API for the
// life of one run and never printed.
import { CliError } from "./errors.ts";

export const OPENROUTER_BASE_URL = "https://openrouter.ai/api/v1";

export type Provider = { base_url: string; api_key?: string };

/**
 * The endpoint and key of a run, as chain_determinism_harness resolves them: an explicit base URL; else
 * OpenRouter when OPENROUTER_API_KEY is set and OPENAI_API_KEY is not; else OPENAI_BASE_URL or OpenAI.
 * `apiKeyEnv` names the variable to read (the YAML configs' `api_key_env`); otherwise OpenRouter's URLs
 * take OPENROUTER_API_KEY and the rest OPENAI_API_KEY, falling back to OPENROUTER_API_KEY.
 */
export function providerFromEnv(
  opts: { baseUrl?: string; apiKeyEnv?: string; env?: NodeJS.ProcessEnv } = {},
): Provider {
  const env = opts.env ?? process.env;
  const base_url =
    opts.baseUrl ??
    (env.OPENROUTER_API_KEY && !env.OPENAI_API_KEY
      ? OPENROUTER_BASE_URL
      : (env.OPENAI_BASE_URL ?? "https://api.openai.com/v1"));
  if (opts.apiKeyEnv) {
    const key = env[opts.apiKeyEnv];
    if (!key) throw new CliError(`${opts.apiKeyEnv} is not set (named by api_key_env)`);
    return { base_url, api_key: key };
  }
  const api_key = base_url.includes("openrouter")
    ? env.OPENROUTER_API_KEY
    : (env.OPENAI_API_KEY ?? env.OPENROUTER_API_KEY);
  return api_key ? { base_url, api_key } : { base_url };
}
