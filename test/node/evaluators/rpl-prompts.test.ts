import { describe, expect, it } from "vitest";
import {
  DEFAULT_RPL_PROMPT,
  RPL_PROMPTS,
  promptBank,
  validatePromptBank,
} from "../../../src/evaluators/rpl/prompts.ts";
import { composePrompt, containsUrl } from "../../../src/engines/rpl/index.ts";
import raw from "../../../prompts/rpl/rpl-assay-v1.json" with { type: "json" };

const bank = promptBank(DEFAULT_RPL_PROMPT);

describe("rpl prompt banks", () => {
  it("maps short names to banks with a full version string", () => {
    expect(DEFAULT_RPL_PROMPT).toBe("rpl-assay-v1");
    expect(Object.keys(RPL_PROMPTS)).toContain("rpl-assay-v1");
    expect(bank.version).toBe("rpl_assay_v1_2026-11-21");
    expect(() => promptBank("rpl_g5_v2")).toThrow(/unknown rpl prompt_version 'rpl_g5_v2' \(known: rpl-assay-v1\)/);
    expect(() => promptBank("toString")).toThrow(RangeError);
    // biome-ignore lint/complexity/useLiteralKeys: the lookup a request's prompt_version makes
    expect(RPL_PROMPTS["toString"]).toBeUndefined();
    // biome-ignore lint/suspicious/noProto lint/complexity/useLiteralKeys: proves the table has no prototype to reach
    expect(RPL_PROMPTS["__proto__"]).toBeUndefined();
  });

  it("has the shape the spec describes", () => {
    expect(bank.paraphrases).toHaveLength(16);
    expect(new Set(bank.paraphrases).size).toBe(16);
    for (const p of bank.paraphrases) {
      expect(p.endsWith("{CLAIM}")).toBe(true);
      expect(p.split("{CLAIM}")).toHaveLength(2);
      expect(p).not.toMatch(/\n/);
    }
    expect(bank.system.endsWith("\n") && !bank.system.endsWith("\n\n")).toBe(true);
    expect(bank.user_template.endsWith("\n") && !bank.user_template.endsWith("\n\n")).toBe(true);
    expect(bank.user_template).toContain('"{CLAIM}"');
    expect(bank.schema).not.toMatch(/\n/);
    for (const key of [
      "prob_true",
      "confidence_self",
      "assumptions",
      "reasoning_bullets",
      "contrary_considerations",
      "ambiguity_flags",
    ]) {
      expect(bank.schema).toContain(`"${key}"`);
    }
    expect(containsUrl(bank)).toBe(false);
  });

  it("rejects malformed banks with a clear error", () => {
    const ok = structuredClone(raw);
    expect(validatePromptBank(ok, "x")).toEqual(bank);
    const broken = (patch: Record<string, unknown>) => ({ ...structuredClone(raw), ...patch });
    expect(() => validatePromptBank(null, "x")).toThrow("rpl prompt bank 'x': must be a JSON object");
    expect(() => validatePromptBank(broken({ system: "" }), "x")).toThrow("'system' must be a non-empty string");
    expect(() => validatePromptBank(broken({ version: 3 }), "x")).toThrow("'version' must be a non-empty string");
    expect(() => validatePromptBank(broken({ user_template: "no placeholder\n" }), "x")).toThrow(
      "'user_template' must contain {CLAIM}",
    );
    expect(() => validatePromptBank(broken({ paraphrases: raw.paraphrases.slice(1) }), "x")).toThrow(
      "must have 16 entries, got 15",
    );
    const noClaim = [...raw.paraphrases];
    noClaim[4] = "How likely is it?";
    expect(() => validatePromptBank(broken({ paraphrases: noClaim }), "x")).toThrow(
      "paraphrase 4 must contain {CLAIM}",
    );
    const empty = [...raw.paraphrases];
    empty[9] = "  ";
    expect(() => validatePromptBank(broken({ paraphrases: empty }), "x")).toThrow(
      "paraphrase 9 must be a non-empty string",
    );
  });

  it("editing any text changes the prompt hash", async () => {
    const hash = (b: typeof bank) =>
      composePrompt({
        system: b.system,
        userTemplate: b.user_template,
        paraphrase: b.paraphrases[0],
        claim: "c",
        schema: b.schema,
      }).then((p) => p.prompt_sha256);
    const base = await hash(bank);
    expect(await hash({ ...bank, system: bank.system + " " })).not.toBe(base);
    expect(await hash({ ...bank, schema: bank.schema + " " })).not.toBe(base);
    expect(await hash({ ...bank, user_template: bank.user_template.replace("Reply", "Answer") })).not.toBe(base);
    expect(
      await hash({
        ...bank,
        paraphrases: [bank.paraphrases[0].replace("Using", "With"), ...bank.paraphrases.slice(1)],
      }),
    ).not.toBe(base);
  });
});
