// Request parity (spec cross-judge.md §2): every line of $REFERENCE_DIR/cross-judge/request_vectors.jsonl.
// The exact URL, headers and body (key order included) a critic sends, the verdict it returns, and the
// failures that escape judgeCritic instead of becoming ERROR verdicts (the line's own `raises` class,
// mapped to ours by expectPythonError). The body and verdict are the engine's; the URL, headers and key
// come from the reference's endpoint wiring (referenceConnect in ./support.ts) over the providers' vendor
// presets, since the engine knows no endpoint.
import { describe, expect, it } from "vitest";
import { buildChatRequest, judgeCritic, renderPrompt, type Critic } from "../../../src/engines/judge/index.ts";
import { describeReference, expectPythonError, type RefLine } from "../../support/reference.ts";
import { contentAnswer, fakeEndpoint, lineName, referenceConnect } from "./support.ts";

const ANSWER = '{"kind": "KEEP", "confidence": 0.9, "reasoning": "r"}';

/**
 * A line with a `yaml_path` loads a bundled YAML prompt file, which the engine does not read (prompts are
 * stored records, spec §8). Its critic is rebuilt from the expected request: system prompt as sent, and the
 * user message turned back into a template (braces escaped, the query replaced by {query}), which also
 * exercises `{{ }}`. Without an expected request there is nothing to rebuild it from.
 */
function criticOf(v: any, line: number): Critic {
  if (v.yaml_path === null || v.yaml_path === undefined) return v.critic;
  const request = v.expected?.request;
  if (!request) throw new Error(`line ${line} loads a YAML prompt and records no request to rebuild its critic from`);
  const [system, user] =
    request.body.messages.length === 2 ? request.body.messages : [{ content: "" }, request.body.messages[0]];
  const escapeBraces = (t: string) => t.replace(/\{/g, "{{").replace(/\}/g, "}}");
  const template = (v.query ? user.content.split(v.query) : [user.content]).map(escapeBraces).join("{query}");
  return {
    name: "yaml",
    model: request.body.model,
    system_prompt: system.content,
    prompt_template: template,
    ...v.critic,
  };
}

describeReference("request vectors", "cross-judge", ["request_vectors.jsonl"], (ref) => {
  const records = ref.records("request_vectors.jsonl");

  it("holds at least one line", () => expect(records.length).toBeGreaterThan(0));

  it.each(records.map((r) => [lineName(r), r] as const))("%s", async (_n, r: RefLine) => {
    const v = r.value;
    const { calls, connect } = fakeEndpoint(contentAnswer(ANSWER));
    // The vendor (ValueError) is resolved when the connect is made, so before the engine renders the template
    // (KeyError), where the reference renders first; no line has both errors, so the order is not observable.
    // The key and the call come inside judgeCritic's failure boundary, as inside the reference's try.
    const run = async () => {
      const critic = criticOf(v, r.line);
      return judgeCritic(critic, v.query, {
        context: v.context ?? {},
        connect: referenceConnect(critic, v.env ?? {}, connect),
        now: () => 0,
      });
    };
    const e = v.expected;
    if (e.raises) {
      // Escapes judge() in the reference (template KeyError, unknown vendor ValueError): it must reject here too.
      const failure = await run().then(
        (verdict) => ({ verdict }),
        (error: unknown) => ({ error }),
      );
      expectPythonError(() => {
        if ("error" in failure) throw failure.error;
      }, e.raises);
      expect(calls).toHaveLength(0);
      return;
    }
    const got = await run();
    expect(got.kind).toBe(e.verdict.kind);
    if (e.request === null) {
      // Failed before sending (missing key): an ERROR verdict. The error's class name is Python's
      // ("RuntimeError: …"); the message after it must match.
      expect(calls).toHaveLength(0);
      expect(e.verdict.error).not.toBeNull();
      const message = e.verdict.error.replace(/^[A-Za-z_][\w.]*: /, "");
      expect(got.error?.endsWith(`: ${message}`), got.error ?? "").toBe(true);
      expect(got.reasoning).toBe(got.error);
      return;
    }
    expect([got.error, got.reasoning]).toEqual([e.verdict.error, e.verdict.reasoning]);
    expect(calls).toHaveLength(1);
    const [{ endpoint, request }] = calls;
    expect(endpoint?.url).toBe(e.request.url);
    expect(endpoint?.headers).toEqual(e.request.headers);
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
  it("lets a context `query` override the query argument and omits an empty system prompt", () => {
    // Spec §2: variables = context plus query unless the context has its own; system_prompt "" sends none.
    const req = buildChatRequest({ name: "n", model: "m", system_prompt: "", prompt_template: "{query}" }, "arg", {
      query: "ctx",
    });
    expect(req.messages).toEqual([{ role: "user", content: "ctx" }]);
  });
});
