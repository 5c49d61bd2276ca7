// Request parity (spec cross-judge.md §2): every line of $REFERENCE_DIR/cross-judge/request_vectors.jsonl.
// The exact URL, headers and body (key order included) a critic sends, the verdict it returns, and the
// failures that escape judgeCritic instead of becoming ERROR verdicts.
import { describe, expect, it } from "vitest";
import { buildChatRequest, judgeCritic, renderPrompt, type Critic } from "../../../src/engines/judge/index.ts";
import { referenceFiles } from "../../support/reference.ts";
import { contentAnswer, fakeEndpoint } from "./support.ts";

const vectors = referenceFiles("cross-judge").lines("request_vectors.jsonl").map((l) => JSON.parse(l));
const ANSWER = '{"kind": "KEEP", "confidence": 0.9, "reasoning": "r"}';

/**
 * r10 loads a bundled YAML prompt file, which the engine does not read (prompts are stored records, spec
 * §8). Its critic is rebuilt from the expected request: system prompt as sent, and the user message turned
 * back into a template (braces escaped, the query replaced by {query}), which also exercises `{{ }}`.
 */
function criticOf(v: any): Critic {
  if (v.yaml_path === null) return v.critic;
  const [system, user] = v.expected.request.body.messages;
  const template = user.content.replace(/\{/g, "{{").replace(/\}/g, "}}").split(v.query).join("{query}");
  return { name: "b3", model: v.expected.request.body.model, system_prompt: system.content, prompt_template: template, ...v.critic };
}

describe("request vectors", () => {
  it("reads every line", () => expect(vectors.length).toBe(11));

  it.each(vectors.map((v) => [`${v.id} ${v.note}`, v]))("%s", async (_n, v) => {
    const { calls, connect } = fakeEndpoint(contentAnswer(ANSWER));
    const run = () => judgeCritic(criticOf(v), v.query, { context: v.context ?? {}, env: v.env, connect, now: () => 0 });
    const e = v.expected;
    if (e.raises) {
      // KeyError (template) and ValueError (unknown vendor) escape judge() in the reference; here: RangeError.
      await expect(run()).rejects.toThrow(RangeError);
      expect(calls).toHaveLength(0);
      return;
    }
    const got = await run();
    expect(got.kind).toBe(e.verdict.kind);
    if (e.request === null) {
      expect(calls).toHaveLength(0);
      // "RuntimeError: <message>": the class name is Python's; the message must match.
      const message = e.verdict.error.replace(/^RuntimeError: /, "");
      expect(got.error?.endsWith(`: ${message}`), got.error ?? "").toBe(true);
      expect(got.reasoning).toBe(got.error);
      return;
    }
    expect([got.error, got.reasoning]).toEqual([e.verdict.error, e.verdict.reasoning]);
    expect(calls).toHaveLength(1);
    const [{ endpoint, request }] = calls;
    expect(endpoint.url).toBe(e.request.url);
    expect(endpoint.headers).toEqual(e.request.headers);
    // String comparison so the key order of the body (model, messages, temperature, max_tokens) counts.
    expect(JSON.stringify(request)).toBe(JSON.stringify(e.request.body));
  });
});

describe("renderPrompt", () => {
  it("formats like str.format for names and doubled braces", () => {
    expect(renderPrompt("{a}-{{b}}-{a}", { a: 1 })).toBe("1-{b}-1");
  });
  it("throws a RangeError naming a missing key and for a lone brace", () => {
    expect(() => renderPrompt("{query} {x}", { query: "q" })).toThrow(/'x'/);
    expect(() => renderPrompt("a } b", {})).toThrow(RangeError);
  });
  it("lets a context `query` override the query argument (r09) and omits an empty system prompt (r03)", () => {
    const req = buildChatRequest({ name: "n", model: "m", system_prompt: "", prompt_template: "{query}" }, "arg", { query: "ctx" });
    expect(req.messages).toEqual([{ role: "user", content: "ctx" }]);
  });
});
