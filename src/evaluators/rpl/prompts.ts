/**
 * Our RPL prompt banks (prompts/rpl/*.json), written by us. A bank is selected by its short name (the API's
 * `prompt_version`, e.g. "rpl-assay-v1"); the full `version` string inside the file (e.g.
 * "rpl_assay_v1_2026-11-21") is what every hash uses (rotation offset, cache key, run id, bootstrap seed).
 *
 * `system` and `user_template` end with one "\n", like the YAML literal blocks of the original, and that
 * newline is part of every prompt_sha256. `schema` is the one-paragraph JSON-format instruction appended to
 * the system text (`system + "\n\n" + schema`, spec rpl.md §4): it is frozen with the bank, so any edit to
 * any text of a bank changes every prompt_sha256, cache key and derived seed — bump `version` when editing.
 */
import assayV1 from "../../../prompts/rpl/rpl-assay-v1.json" with { type: "json" };
import { sha256Hex } from "../../crypto.ts";

export type RplPromptBank = {
  /** The full version string; hashes use this. */
  version: string;
  system: string;
  /** Contains `{CLAIM}`. */
  user_template: string;
  /** The JSON-format instruction appended to `system`. */
  schema: string;
  /** Neutral one-sentence instructions, each containing `{CLAIM}`. */
  paraphrases: string[];
};

/** How many paraphrases a bank must have (the original's banks have 16). */
export const RPL_BANK_SIZE = 16;

/**
 * Checks a bank read from JSON and returns it typed (a fresh copy, so the module's data can't be mutated
 * through it). Throws an Error naming the bank and the problem.
 */
export function validatePromptBank(raw: unknown, name: string): RplPromptBank {
  const fail = (why: string): never => {
    throw new Error(`rpl prompt bank '${name}': ${why}`);
  };
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) fail("must be a JSON object");
  const o = raw as Record<string, unknown>;
  for (const key of ["version", "system", "user_template", "schema"] as const) {
    if (typeof o[key] !== "string" || (o[key] as string).trim() === "") fail(`'${key}' must be a non-empty string`);
  }
  if (!(o.user_template as string).includes("{CLAIM}")) fail("'user_template' must contain {CLAIM}");
  if (!Array.isArray(o.paraphrases)) fail("'paraphrases' must be an array");
  const paraphrases = o.paraphrases as unknown[];
  if (paraphrases.length !== RPL_BANK_SIZE)
    fail(`'paraphrases' must have ${RPL_BANK_SIZE} entries, got ${paraphrases.length}`);
  paraphrases.forEach((p, i) => {
    if (typeof p !== "string" || p.trim() === "") fail(`paraphrase ${i} must be a non-empty string`);
    if (!(p as string).includes("{CLAIM}")) fail(`paraphrase ${i} must contain {CLAIM}`);
  });
  return {
    version: o.version as string,
    system: o.system as string,
    user_template: o.user_template as string,
    schema: o.schema as string,
    paraphrases: [...(paraphrases as string[])],
  };
}

/**
 * Every bank by short name (the API's `prompt_version`), validated at load. A null-prototype object, so
 * a lookup such as `RPL_PROMPTS["toString"]` is undefined rather than an inherited function.
 */
export const RPL_PROMPTS: Record<string, RplPromptBank> = Object.assign(
  Object.create(null) as Record<string, RplPromptBank>,
  {
    "rpl-assay-v1": validatePromptBank(assayV1, "rpl-assay-v1"),
  },
);

export const DEFAULT_RPL_PROMPT = "rpl-assay-v1";

/**
 * The JSON-format instruction a tenant's bank gets when it brings none: Heretix's YAML has no such key
 * (its SCHEMA is fixed in code), and the answer parser needs these keys. Copied into the stored bank, so
 * a later change here cannot change a version already pushed.
 */
export const DEFAULT_RPL_SCHEMA = RPL_PROMPTS[DEFAULT_RPL_PROMPT].schema;

/**
 * The SHA-256 that identifies a bank (a run's `prompt_sha256`, a pushed prompt's `sha256`): of the JSON of
 * `[version, system, user_template, schema, paraphrases]`, every text its prompts are composed from and
 * the version string every other hash uses.
 */
export function rplBankSha256(bank: RplPromptBank): Promise<string> {
  return sha256Hex(JSON.stringify([bank.version, bank.system, bank.user_template, bank.schema, bank.paraphrases]));
}

/** The bank for a short name; throws a RangeError listing the known names otherwise. */
export function promptBank(name: string): RplPromptBank {
  const bank = RPL_PROMPTS[name];
  if (!bank)
    throw new RangeError(`unknown rpl prompt_version '${name}' (known: ${Object.keys(RPL_PROMPTS).join(", ")})`);
  return bank;
}
