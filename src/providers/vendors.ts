/**
 * The judge's endpoint presets (spec cross-judge.md §2 table): vendor knowledge, so the providers' and
 * never the engines'. The judge engine only asks its `connect` for a `ChatClient`; the platform turns a
 * critic's `vendor` into a base URL here and binds the key from the run's secrets (never from an
 * environment, which is why the presets' env-var names serve only the reference's own wiring in tests).
 */

/**
 * Vendor presets (spec §2 table; keys are exact-case, r11). `together` is an addition of this port
 * (OpenAI-compatible endpoint), not in the reference.
 */
export const VENDORS: Readonly<Record<string, { baseUrl: string; envKey: string }>> = {
  deepseek: { baseUrl: "https://api.deepseek.com/v1", envKey: "DEEPSEEK_API_KEY" },
  openai: { baseUrl: "https://api.openai.com/v1", envKey: "OPENAI_API_KEY" },
  openrouter: { baseUrl: "https://openrouter.ai/api/v1", envKey: "OPENROUTER_API_KEY" },
  together: { baseUrl: "https://api.together.xyz/v1", envKey: "TOGETHER_API_KEY" },
};

/** The vendor of a critic that names none, as in the reference. */
export const DEFAULT_VENDOR = "deepseek";

/** The endpoint fields of a critic record (spec §2). */
export type CriticEndpointFields = { vendor?: string; base_url?: string | null; api_key?: string | null };

/**
 * `base_url`, else the vendor's preset; the vendor defaults to `deepseek`, as in the reference.
 * @throws RangeError for a vendor without preset and no base_url (spec §2 step 2, r06, r11).
 */
export function resolveBaseUrl(critic: CriticEndpointFields): string {
  if (critic.base_url) return critic.base_url;
  const vendor = critic.vendor ?? DEFAULT_VENDOR;
  const preset = Object.hasOwn(VENDORS, vendor) ? VENDORS[vendor] : undefined;
  if (!preset)
    throw new RangeError(`resolveBaseUrl: unknown vendor '${vendor}'. Pass base_url explicitly for custom vendors.`);
  return preset.baseUrl;
}
