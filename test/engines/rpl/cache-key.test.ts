// Cache keys, prompt hashes and run ids (spec rpl.md §4, §5, §12, §15): every line of
// $REFERENCE_DIR/rpl/cache_key_vectors.jsonl, exact.
import { describe, expect, it } from "vitest";
import { composePrompt, runId, sampleCacheKey, sampleCacheKeyV1, sha256Hex } from "../../../src/engines/rpl/index.ts";
import { referenceFiles } from "../../support/reference.ts";

const vectors = referenceFiles("rpl").lines("cache_key_vectors.jsonl").map((l) => JSON.parse(l));
const byKind = (kind: string) => vectors.filter((v) => v.kind === kind);

describe("cache_key vectors", () => {
  it("knows every kind in the file", () => {
    const known = ["sample_cache_key", "prompt_sha256", "run_id", "mock_provider"];
    expect(vectors.every((v) => known.includes(v.kind))).toBe(true);
    for (const k of known) expect(byKind(k).length).toBeGreaterThan(0);
  });

  it.each(byKind("sample_cache_key").map((v, i) => [i, v.claim, v]))("sample key %i (%s): 6- and 7-field forms", async (_i, _c, v) => {
    const input = { claim: v.claim, model: v.model, promptVersionFull: v.prompt_version, promptSha256: v.prompt_sha256, replicateIdx: v.replicate_idx, maxOutputTokens: v.max_output_tokens };
    expect(await sampleCacheKeyV1(input)).toBe(v.cache_key_v1_6field);
    expect(await sampleCacheKey({ ...input, providerMode: v.provider_mode })).toBe(v.cache_key_v2_7field);
  });

  it.each(byKind("prompt_sha256").map((v, i) => [i, v.claim, v]))("prompt %i (%s): live and mock hashes, code-point length", async (_i, _c, v) => {
    const base = { system: v.system_text, userTemplate: v.user_template, paraphrase: v.paraphrase_text, claim: v.claim };
    const live = await composePrompt({ ...base, schema: v.schema_instructions });
    expect(live.user_text).toBe(v.user_text);
    expect(live.prompt_sha256).toBe(v.prompt_sha256_live);
    expect(live.prompt_char_len).toBe(v.prompt_char_len);
    expect((await composePrompt({ ...base, schema: "MOCK" })).prompt_sha256).toBe(v.prompt_sha256_mock);
  });

  it.each(byKind("run_id").map((v, i) => [i, v.claim, v]))("run id %i (%s)", async (_i, _c, v) => {
    expect(await runId({ claim: v.claim, model: v.model, promptVersionFull: v.prompt_version, K: v.K, R: v.R })).toBe(v.run_id);
  });

  // The mock provider itself is not part of this engine (the simulator owns it); these lines pin the
  // seed it derives, int(sha256(prompt_sha256_mock + "|" + claim)[0:8], 16), and the recorded draw →
  // round(clip(0.25 + draw, 0.05, 0.95), 2). The ziggurat normal is not ported (§15).
  it.each(byKind("mock_provider").map((v, i) => [i, v.claim, v]))("mock provider %i (%s): seed and probability", async (_i, _c, v) => {
    expect(parseInt((await sha256Hex(`${v.prompt_sha256_mock}|${v.claim}`)).slice(0, 8), 16)).toBe(v.mock_seed);
    expect(Math.round(Math.min(Math.max(0.25 + v.normal_draw, 0.05), 0.95) * 100) / 100).toBe(v.prob_true);
  });
});

describe("composePrompt", () => {
  // "☕" is one code point but one UTF-16 unit; "𝔸" is one code point but two units.
  it("counts prompt length in code points", async () => {
    const p = await composePrompt({ system: "", userTemplate: "", paraphrase: "{CLAIM}", claim: "𝔸", schema: "" });
    expect(p.prompt_char_len).toBe("\n\n".length + "\n\n".length + 1 + "\n\n".length);
  });

  it("replaces every {CLAIM} and treats $ in the claim literally", async () => {
    const p = await composePrompt({ system: "s", userTemplate: "{CLAIM}/{CLAIM}", paraphrase: "{CLAIM}", claim: "$&x", schema: "S" });
    expect(p.user_text).toBe("$&x\n\n$&x/$&x");
  });
});
