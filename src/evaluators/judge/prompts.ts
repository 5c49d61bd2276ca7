/**
 * Our critic prompt bank (prompts/judge/critics.json), written by us. A critic names a prompt as
 * "name@version", or "name" for its highest version; what a verdict records is the resolved name,
 * version and the SHA-256 of the texts, so a result says exactly which words produced it.
 * Published versions are never edited: a change is a new version.
 */
import bank from "../../../prompts/judge/critics.json" with { type: "json" };
import { sha256Hex } from "../../crypto.ts";
import { renderPrompt } from "../../engines/judge/index.ts";

export type CriticPrompt = {
  name: string;
  version: number;
  description: string;
  system_prompt: string;
  prompt_template: string;
};

/** The name recorded for a critic's own system_prompt / prompt_template. */
export const INLINE_PROMPT = "inline";
export const DEFAULT_CRITIC_PROMPT = "panel-general@2";

function validate(raw: unknown): CriticPrompt[] {
  const prompts = (raw as { prompts?: unknown }).prompts;
  if (!Array.isArray(prompts)) throw new Error("judge prompt bank: 'prompts' must be an array");
  const seen = new Set<string>();
  return prompts.map((p: Record<string, unknown>, i) => {
    for (const key of ["name", "description", "system_prompt", "prompt_template"]) {
      if (typeof p[key] !== "string" || p[key] === "")
        throw new Error(`judge prompt bank: prompts[${i}].${key} must be a non-empty string`);
    }
    if (!Number.isInteger(p.version) || (p.version as number) < 1)
      throw new Error(`judge prompt bank: prompts[${i}].version must be a positive integer`);
    if (!(p.prompt_template as string).includes("{query}"))
      throw new Error(`judge prompt bank: prompts[${i}] must use {query}`);
    const id = `${p.name}@${p.version}`;
    if (seen.has(id)) throw new Error(`judge prompt bank: ${id} appears twice`);
    seen.add(id);
    return { ...(p as CriticPrompt) };
  });
}

export const CRITIC_PROMPTS: readonly CriticPrompt[] = validate(bank);

/** The prompt a reference names, or a message saying why there is none. */
export function findCriticPrompt(ref: string): CriticPrompt | string {
  const [name, version] = ref.split("@", 2);
  const candidates = CRITIC_PROMPTS.filter((p) => p.name === name);
  const known = () => `known: ${[...new Set(CRITIC_PROMPTS.map((p) => p.name))].join(", ")}`;
  if (candidates.length === 0) return `unknown prompt '${name}'; ${known()}`;
  if (version === undefined) return candidates.reduce((a, b) => (b.version > a.version ? b : a));
  const found = /^\d+$/.test(version) ? candidates.find((p) => p.version === Number(version)) : undefined;
  return (
    found ?? `prompt '${name}' has no version '${version}'; versions: ${candidates.map((p) => p.version).join(", ")}`
  );
}

/** The SHA-256 that identifies a pair of prompt texts (the JSON of [system_prompt, prompt_template]). */
export function promptSha256(systemPrompt: string, template: string): Promise<string> {
  return sha256Hex(JSON.stringify([systemPrompt, template]));
}

export { YAML_DEFAULT_SYSTEM_PROMPT } from "../../engines/judge/index.ts";

/** The placeholders of a critic template, tokenised as renderPrompt does (`{{` and `}}` are literal braces). */
export function templateKeys(template: string): string[] {
  return [...template.matchAll(/\{\{|\}\}|\{([^{}]*)\}/g)].flatMap((m) => (m[1] === undefined ? [] : [m[1]]));
}

/**
 * Why a critic template can never render (an unmatched single brace, as `renderPrompt` says), or null.
 * Which keys it needs is checked per item when a run is created: an item's context may supply them.
 */
export function templateSyntaxError(template: string): string | null {
  try {
    renderPrompt(template, Object.fromEntries(templateKeys(template).map((k) => [k, ""])));
    return null;
  } catch (err) {
    return (err as Error).message.replace(/^renderPrompt: /, "");
  }
}
