/**
 * Prompt composition and `prompt_sha256` (spec rpl.md §4). The SCHEMA instruction text is a parameter,
 * not a constant here: it belongs with the prompt bank (it changed between Heretix commits and every hash
 * depends on it, §18.2), so whoever freezes the bank freezes the schema text with it.
 */
import { lenCodePoints } from "../python/index.ts";
import { sha256Hex } from "./hash.ts";

export type ComposedPrompt = {
  /** `system + "\n\n" + schema`: the provider's instructions. */
  instructions: string;
  /** `paraphrase(claim) + "\n\n" + user_template(claim)`: the user message. */
  user_text: string;
  /** `sha256_hex(instructions + "\n\n" + user_text)`. */
  prompt_sha256: string;
  /** Length of that same string in code points (Python `len`), for the `max_prompt_chars` cap. */
  prompt_char_len: number;
};

/**
 * Compose one slot's prompt. `{CLAIM}` is replaced everywhere in both the paraphrase and the user template.
 * `system` and `userTemplate` are used byte for byte, including the trailing newline of YAML `|` blocks.
 * For the mock provider's hash pass `schema: "MOCK"` (§4: the mock stores that hash; the cache key uses
 * the real-schema hash).
 */
export async function composePrompt(input: {
  system: string;
  userTemplate: string;
  paraphrase: string;
  claim: string;
  schema: string;
}): Promise<ComposedPrompt> {
  const { system, userTemplate, paraphrase, claim, schema } = input;
  const user_text =
    paraphrase.replaceAll("{CLAIM}", () => claim) + "\n\n" + userTemplate.replaceAll("{CLAIM}", () => claim);
  const instructions = system + "\n\n" + schema;
  const full = instructions + "\n\n" + user_text;
  return { instructions, user_text, prompt_sha256: await sha256Hex(full), prompt_char_len: lenCodePoints(full) };
}
