/**
 * What a critic's `prompt` names: one of our bank's prompts ("name@version", or "name" for its highest
 * version), or one of the tenant's own as "name@version" (`POST /v1/prompts`; always with its version,
 * so a run never depends on which version was pushed last). A tenant may not push a prompt under one of
 * our names, so the two cannot be confused. The run keeps the texts it resolved in its config.
 */
import type { Db } from "../../db/client.ts";
import { getPrompt, type JudgePromptContent } from "../../db/prompts.ts";
import { CRITIC_PROMPTS, findCriticPrompt } from "./prompts.ts";

/** A resolved reference: the texts the critic sends, and the name and version its verdicts record. */
export type ResolvedCriticPrompt = {
  name: string;
  version: number | string;
  system_prompt: string;
  prompt_template: string;
};

/** The prompt `ref` names for this tenant, or a message saying why there is none. */
export async function resolveCriticPrompt(
  db: Db,
  tenantId: string,
  ref: string,
): Promise<ResolvedCriticPrompt | string> {
  const at = ref.indexOf("@");
  const name = at < 0 ? ref : ref.slice(0, at);
  if (CRITIC_PROMPTS.some((p) => p.name === name)) return findCriticPrompt(ref);
  const yours = "your own prompts are named name@version (POST /v1/prompts)";
  if (at < 0) return `${findCriticPrompt(ref)}; ${yours}`;
  const row = await getPrompt(db, tenantId, name, ref.slice(at + 1));
  if (!row) return `no prompt '${ref}' for this tenant; ${yours}`;
  if (row.kind !== "judge") return `'${ref}' is an ${row.kind} prompt, not a critic prompt`;
  const c = row.content as JudgePromptContent;
  return { name, version: row.version, system_prompt: c.system_prompt, prompt_template: c.user_prompt_template };
}
