// cross-judge's vendor presets as the CLI needs them: which environment variable holds each vendor's key
// (cross-judge reads `<VENDOR>_API_KEY` when a critic has no api_key). The server keeps the same table
// (src/providers/vendors.ts) for its endpoints; the CLI may not import it, so test/cli/judge.test.ts
// checks that the two agree.
export const VENDOR_KEY_ENV: Readonly<Record<string, string>> = {
  deepseek: "DEEPSEEK_API_KEY",
  openai: "OPENAI_API_KEY",
  openrouter: "OPENROUTER_API_KEY",
  together: "TOGETHER_API_KEY",
};

/** cross-judge's Critic default when no vendor is named. */
export const DEFAULT_VENDOR = "deepseek";
