/**
 * What an rpl `prompt_version` names: one of our banks by its short name ("rpl-assay-v1"), or one of the
 * tenant's own as "name@version" (`POST /v1/prompts`). Our names never contain "@", and a tenant may not
 * push a prompt under one of them, so the two cannot be confused. The run keeps the bank it resolved
 * (a snapshot in its config), so nothing done later to the prompts changes it.
 */
import type { Db } from "../../db/client.ts";
import { getPrompt, type RplPromptContent } from "../../db/prompts.ts";
import { RPL_PROMPTS, rplBankSha256, type RplPromptBank } from "./prompts.ts";

/** A resolved reference: the bank, as the run snapshots it, and its SHA-256 (rplBankSha256). */
export type ResolvedRplPrompt = { ref: string; bank: RplPromptBank; sha256: string };

const known = () =>
  `available: ${Object.keys(RPL_PROMPTS).join(", ")}, or one of your rpl prompts as name@version (POST /v1/prompts)`;

/** The bank `ref` names for this tenant, or a message saying why there is none. */
export async function resolveRplPrompt(db: Db, tenantId: string, ref: string): Promise<ResolvedRplPrompt | string> {
  const builtIn = RPL_PROMPTS[ref];
  if (builtIn) return { ref, bank: builtIn, sha256: await rplBankSha256(builtIn) };
  const at = ref.indexOf("@");
  if (at < 0) return `unknown prompt version '${ref}'; ${known()}`;
  const row = await getPrompt(db, tenantId, ref.slice(0, at), ref.slice(at + 1));
  if (!row) return `no prompt '${ref}' for this tenant; ${known()}`;
  if (row.kind !== "rpl") return `'${ref}' is a ${row.kind} prompt, not an rpl bank`;
  const c = row.content as RplPromptContent;
  // The version string is what every hash uses (rotation, cache key, seeds), as the YAML's `version` is in Heretix.
  const bank: RplPromptBank = {
    version: row.version,
    system: c.system,
    user_template: c.user_template,
    schema: c.schema,
    paraphrases: [...c.paraphrases],
  };
  return { ref, bank, sha256: row.sha256 };
}
