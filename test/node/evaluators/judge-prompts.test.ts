import { describe, expect, it } from "vitest";
import {
  CRITIC_PROMPTS,
  DEFAULT_CRITIC_PROMPT,
  findCriticPrompt,
  promptSha256,
} from "../../../src/evaluators/judge/prompts.ts";
import { renderPrompt } from "../../../src/engines/judge/index.ts";

describe("critic prompt bank", () => {
  it("resolves name@version and a bare name to the highest version", () => {
    const latest = findCriticPrompt("panel-general");
    const v1 = findCriticPrompt("panel-general@1");
    expect(typeof latest).toBe("object");
    expect(typeof v1).toBe("object");
    const versions = CRITIC_PROMPTS.filter((p) => p.name === "panel-general").map((p) => p.version);
    expect((latest as { version: number }).version).toBe(Math.max(...versions));
    expect((v1 as { version: number }).version).toBe(1);
    expect(findCriticPrompt("panel-general@99")).toMatch(/no version '99'/);
    expect(findCriticPrompt("panel-general@x")).toMatch(/no version 'x'/);
    expect(findCriticPrompt("nope")).toMatch(/unknown prompt 'nope'; known: .*panel-general/);
    expect(typeof findCriticPrompt(DEFAULT_CRITIC_PROMPT)).toBe("object");
  });

  it("every prompt renders with only {query} and {labels}", () => {
    for (const p of CRITIC_PROMPTS) {
      const text = renderPrompt(p.prompt_template, { query: "Q-TEXT", labels: "A | B" });
      expect(text, `${p.name}@${p.version}`).toContain("Q-TEXT");
      expect(text).toContain("A | B");
      expect(text).toContain('{"kind"');
    }
  });

  it("the sha256 identifies the pair of texts, in order", async () => {
    const a = await promptSha256("s", "t");
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(await promptSha256("s", "t")).toBe(a);
    expect(await promptSha256("t", "s")).not.toBe(a);
    expect(await promptSha256("s\u0000", "t")).not.toBe(a);
  });
});
