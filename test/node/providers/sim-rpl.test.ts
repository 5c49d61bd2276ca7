import { describe, expect, it } from "vitest";
import { createSimClient, type ChatRequest } from "../../../src/providers/index.ts";
import { claimOf, isRplRequest } from "../../../src/providers/sim/rpl.ts";
import { composePrompt, containsUrl, parseAnswer } from "../../../src/engines/rpl/index.ts";
import { RPL_PROMPTS } from "../../../src/evaluators/rpl/prompts.ts";

const bank = RPL_PROMPTS["rpl-assay-v1"];
const CLAIM = "Regular exercise lowers resting heart rate";

async function request(claim: string, template: number): Promise<ChatRequest> {
  const p = await composePrompt({
    system: bank.system,
    userTemplate: bank.user_template,
    paraphrase: bank.paraphrases[template],
    claim,
    schema: bank.schema,
  });
  return {
    model: "sim:prior",
    messages: [
      { role: "system", content: p.instructions },
      { role: "user", content: p.user_text },
    ],
    max_tokens: 1200,
  };
}

async function answer(claim: string, template: number, replay = 0, seed: number | string = 7, model = "sim:prior") {
  const res = await createSimClient({ model, seed, replay }).chat(await request(claim, template));
  const text = res.choices[0].message.content!;
  return { text, parsed: parseAnswer(text), res };
}

describe("sim RPL responder", () => {
  it("answers an RPL request with a valid strict-JSON answer", async () => {
    const { text, parsed, res } = await answer(CLAIM, 0);
    expect(parsed.valid).toBe(true);
    expect(parsed.reason).toBeNull();
    expect(res.choices[0].finish_reason).toBe("stop");
    const raw = JSON.parse(text);
    expect(Object.keys(raw)).toEqual([
      "prob_true",
      "confidence_self",
      "assumptions",
      "reasoning_bullets",
      "contrary_considerations",
      "ambiguity_flags",
    ]);
    expect(raw.prob_true).toBeGreaterThanOrEqual(0.01);
    expect(raw.prob_true).toBeLessThanOrEqual(0.99);
    expect(Math.round(raw.prob_true * 100) / 100).toBe(raw.prob_true);
    expect(raw.confidence_self).toBeGreaterThanOrEqual(0);
    expect(raw.confidence_self).toBeLessThanOrEqual(1);
    expect(raw.reasoning_bullets).toHaveLength(3);
    expect(new Set(raw.reasoning_bullets).size).toBe(3);
    expect(raw.contrary_considerations).toHaveLength(2);
    expect(Array.isArray(raw.assumptions) && Array.isArray(raw.ambiguity_flags)).toBe(true);
  });

  it("is deterministic for (model, seed, replay, request)", async () => {
    const a = await answer(CLAIM, 3, 2, "18446744073709551615");
    const b = await answer(CLAIM, 3, 2, "18446744073709551615");
    expect(b.text).toBe(a.text);
    expect(b.res).toEqual(a.res);
  });

  it("spreads answers across templates around a per-claim base, with small replicate noise", async () => {
    for (const claim of [CLAIM, "The Moon is made mostly of iron", "Tariffs raise consumer prices"]) {
      const probs: number[] = [];
      for (let t = 0; t < bank.paraphrases.length; t++) probs.push((await answer(claim, t)).parsed.prob!);
      // Base ± 0.08 template effect ± 0.03 noise: at most 0.22 apart, and not all equal.
      expect(Math.max(...probs) - Math.min(...probs)).toBeLessThanOrEqual(0.22 + 1e-9);
      expect(new Set(probs).size).toBeGreaterThan(3);
      // Replicates of one template stay within the noise band (± 0.03, plus rounding).
      const reps: number[] = [];
      for (let replay = 0; replay < 8; replay++) reps.push((await answer(claim, 5, replay)).parsed.prob!);
      expect(Math.max(...reps) - Math.min(...reps)).toBeLessThanOrEqual(0.06 + 0.011);
    }
    // Different claims have different centres.
    const centre = async (claim: string) => {
      let s = 0;
      for (let t = 0; t < 16; t++) s += (await answer(claim, t)).parsed.prob!;
      return s / 16;
    };
    const centres = await Promise.all(
      ["alpha claim one", "beta claim two", "gamma claim three", "delta claim four"].map(centre),
    );
    expect(Math.max(...centres) - Math.min(...centres)).toBeGreaterThan(0.05);
  });

  it("never puts a URL in its answers", async () => {
    for (let t = 0; t < 16; t++) {
      for (let replay = 0; replay < 3; replay++) {
        const { parsed } = await answer(`claim number ${t}`, t, replay);
        expect(containsUrl(parsed.raw)).toBe(false);
        expect(parsed.valid).toBe(true);
      }
    }
  });

  it("reads the claim from the bank's user template", async () => {
    const req = await request('A "quoted"\nmulti-line claim', 2);
    expect(claimOf(req.messages[1].content as string)).toBe('A "quoted"\nmulti-line claim');
    expect(claimOf("no marker here")).toBeNull();
  });

  it("leaves other requests alone: tool requests go to the agent, plain chats get text", async () => {
    const rplReq = await request(CLAIM, 0);
    const ctx = (req: ChatRequest) => ({
      request: req,
      model: "sim:prior",
      seed: "0",
      replay: 0,
      divergence: 0,
      userText: "",
      turn: 0,
    });
    expect(isRplRequest(ctx(rplReq))).toBe(true);
    const withTools: ChatRequest = { ...rplReq, tools: [{ type: "function", function: { name: "final_answer" } }] };
    expect(isRplRequest(ctx(withTools))).toBe(false);
    const plain: ChatRequest = {
      model: "sim:prior",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Hello there" },
      ],
    };
    expect(isRplRequest(ctx(plain))).toBe(false);
    const res = await createSimClient({ model: "sim:prior" }).chat(plain);
    expect(res.choices[0].message.content).toMatch(/^Simulated reply about/);
  });
});
