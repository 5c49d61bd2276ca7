// Parsing parity (spec cross-judge.md §2 steps 3–5, §3): every line of $REFERENCE_DIR/cross-judge/
// parse_vectors.jsonl goes through judgeCritic with a fake endpoint, as the reference ran
// Critic(name="critic-x").judge("q") against a fake vendor. The deliberate fixes (parse-fixes.test.ts)
// are the only lines that do not have to match here.
import { describe, expect, it } from "vitest";
import { judgeCritic } from "../../../src/engines/judge/index.ts";
import type { ChatResponse } from "../../../src/providers/types.ts";
import { referenceFiles } from "../../support/reference.ts";
import { closeTo, contentAnswer, fakeEndpoint, stepClock } from "./support.ts";

const FIXED_PARSE_VECTORS = ["p10", "p25", "p32", "p33", "p40"];
const vectors = referenceFiles("cross-judge").lines("parse_vectors.jsonl").map((l) => JSON.parse(l));
const critic = { name: "critic-x", model: "m", api_key: "k" };

/** The simulated transport of an http-layer vector, as a ChatClient would surface it. */
function httpAnswer(http: { status?: number; content?: string | null; body?: unknown; exception?: string }): () => ChatResponse {
  return () => {
    if (http.exception === "timeout") throw Object.assign(new Error("Request timed out."), { name: "APITimeoutError" });
    if (http.status !== undefined && http.status >= 400) throw Object.assign(new Error(`HTTP ${http.status}`), { name: "InternalServerError" });
    if (http.body !== undefined) return http.body as ChatResponse;
    return contentAnswer(http.content ?? null)();
  };
}

describe("parse vectors", () => {
  it("reads every line", () => expect(vectors.length).toBe(44));

  const cases = vectors.filter((v) => !FIXED_PARSE_VECTORS.includes(v.id));
  it.each(cases.map((v) => [`${v.id} ${v.note}`, v]))("%s", async (_n, v) => {
    const { connect } = fakeEndpoint(v.layer === "http" ? httpAnswer(v.http) : contentAnswer(v.raw));
    const got = await judgeCritic(critic, "q", { connect, now: stepClock() });
    const e = v.expected;
    expect(got.kind).toBe(e.kind);
    expect(got.critic_id).toBe(e.critic_id);
    closeTo(got.confidence, e.confidence);
    expect(got.raw_response).toBe(e.raw_response);
    if (v.error_string_is_python_specific) {
      // Python exception names are not portable (README): only "errored" is matched.
      expect(got.error).not.toBeNull();
      expect(got.reasoning).toBe(got.error);
    } else {
      expect(got.error).toBe(e.error);
      expect(got.reasoning).toBe(e.reasoning);
    }
    expect(got.elapsed_s).toBe(0.002); // one 1.5 ms step, rounded to 3 decimals
  });
});
