// Cache keys, prompt hashes and run ids (spec rpl.md §4, §5, §12, §15): every line of
// $REFERENCE_DIR/rpl/cache_key_vectors.jsonl, exact (README). Lines are picked by content: a
// `sample_cache_key` line is checked in the 6-field form when it carries `cache_key_v1_6field` and in the
// 7-field form when it carries `cache_key_v2_7field`; `prompt_sha256`, `run_id` and `mock_provider` lines by
// their kind. Integers that go into a hashed string (replicate_idx, max_output_tokens, K, R) are written with
// Python str(), where 5 and 5.0 differ, so those lines are also read losslessly and the type is checked.
import { describe, expect, it } from "vitest";
import { isRawJson, type PyPlain } from "../../../src/engines/python/index.ts";
import { composePrompt, runId, sampleCacheKey, sampleCacheKeyV1, sha256Hex } from "../../../src/engines/rpl/index.ts";
import {
  describeReference,
  itEachCase,
  lossless,
  type RefLine,
  pythonErrorOf,
  expectPythonRejection,
} from "../../support/reference.ts";

/** Python type of a losslessly read JSON number: "int" for an integer lexeme, "float" for one with `.`/`e`. */
function pyNumberType(v: PyPlain | undefined): "int" | "float" | "not a number" {
  if (typeof v === "number") return Number.isInteger(v) ? "int" : "float";
  if (isRawJson(v)) return /^-?\d+$/.test(v.rawJSON) ? "int" : "float";
  return "not a number";
}

function expectPyInts(r: RefLine, fields: readonly string[]): void {
  const py = lossless(r.text) as Record<string, PyPlain>;
  for (const f of fields)
    expect(pyNumberType(py[f]), `${f} goes into the hashed string with str(); the engine writes an int`).toBe("int");
}

/**
 * Python `round(x, 2)` for 0 <= x < 1e21 (CPython rounds the exact binary value, ties to even, and reads the
 * decimal back as a double). `toFixed(2)` also rounds the exact value but breaks exact ties upwards. An exact
 * tie means x = (2k+1)/200 exactly, which a double can only be when 25 | 2k+1, i.e. x = odd/8 (0.125, 0.375, …).
 */
function pyRound2(x: number): number {
  const tie = Number.isInteger(x * 8) && !Number.isInteger(x * 4);
  if (!tie) return Number.parseFloat(x.toFixed(2));
  const n = Math.floor(x * 100);
  return (n % 2 === 0 ? n : n + 1) / 100;
}

const sampleInput = (v: any) => ({
  claim: v.claim,
  model: v.model,
  promptVersionFull: v.prompt_version,
  promptSha256: v.prompt_sha256,
  replicateIdx: v.replicate_idx,
  maxOutputTokens: v.max_output_tokens,
});
const promptInput = (v: any) => ({
  system: v.system_text,
  userTemplate: v.user_template,
  paraphrase: v.paraphrase_text,
  claim: v.claim,
});
const label = (r: RefLine): string => `line ${r.line} (${JSON.stringify(r.value.claim)})`;
const KINDS = ["sample_cache_key", "prompt_sha256", "run_id", "mock_provider"];

describeReference("cache_key vectors", "rpl", ["cache_key_vectors.jsonl"], (ref) => {
  const lines = ref.records("cache_key_vectors.jsonl");
  const withOutputs = lines.filter((r) => pythonErrorOf(r.value) === null);
  const ofKind = (kind: string) => withOutputs.filter((r) => r.value.kind === kind);
  const errors = lines.filter((r) => pythonErrorOf(r.value) !== null);

  // A line of another kind would otherwise be silently unchecked.
  it("knows the kind of every line", () => {
    expect(lines.filter((r) => !KINDS.includes(r.value.kind)).map((r) => `line ${r.line}: ${r.value.kind}`)).toEqual(
      [],
    );
  });

  const sampleKeys = ofKind("sample_cache_key");
  itEachCase(
    sampleKeys.filter((r) => r.value.cache_key_v1_6field !== undefined),
    (r) => `${label(r)}: 6-field sample key (design doc)`,
    "sample_cache_key line with a 6-field key (cache_key_v1_6field)",
    async (r) => {
      expectPyInts(r, ["replicate_idx", "max_output_tokens"]);
      expect(await sampleCacheKeyV1(sampleInput(r.value))).toBe(r.value.cache_key_v1_6field);
    },
  );

  itEachCase(
    sampleKeys.filter((r) => r.value.cache_key_v2_7field !== undefined),
    (r) => `${label(r)}: 7-field sample key with provider_mode ${r.value.provider_mode}`,
    "sample_cache_key line with a 7-field key (cache_key_v2_7field)",
    async (r) => {
      expectPyInts(r, ["replicate_idx", "max_output_tokens"]);
      expect(await sampleCacheKey({ ...sampleInput(r.value), providerMode: r.value.provider_mode })).toBe(
        r.value.cache_key_v2_7field,
      );
    },
  );

  itEachCase(
    ofKind("prompt_sha256"),
    (r) => `${label(r)}: live and mock hashes, code-point length`,
    "prompt_sha256 line",
    async ({ value: v }) => {
      const live = await composePrompt({ ...promptInput(v), schema: v.schema_instructions });
      expect(live.user_text).toBe(v.user_text);
      expect(live.prompt_sha256).toBe(v.prompt_sha256_live);
      expect(live.prompt_char_len).toBe(v.prompt_char_len);
      expect((await composePrompt({ ...promptInput(v), schema: "MOCK" })).prompt_sha256).toBe(v.prompt_sha256_mock);
    },
  );

  itEachCase(
    ofKind("run_id"),
    (r) => `${label(r)}: run id`,
    "run_id line",
    async (r) => {
      expectPyInts(r, ["K", "R"]);
      const v = r.value;
      expect(await runId({ claim: v.claim, model: v.model, promptVersionFull: v.prompt_version, K: v.K, R: v.R })).toBe(
        v.run_id,
      );
    },
  );

  // The mock provider is not part of this engine (our simulator replaces it, §15); these lines pin the seed
  // it derives with the engine's hash, int(sha256(prompt_sha256_mock + "|" + claim)[0:8], 16), and the spec's
  // probability from the recorded draw, round(clip(0.25 + draw, 0.05, 0.95), 2). The ziggurat normal itself
  // is not ported, so normal_draw is an input here, not a compared output.
  itEachCase(
    ofKind("mock_provider"),
    (r) => `${label(r)}: mock seed and probability`,
    "mock_provider line",
    async ({ value: v }) => {
      expect(Number.parseInt((await sha256Hex(`${v.prompt_sha256_mock}|${v.claim}`)).slice(0, 8), 16)).toBe(
        v.mock_seed,
      );
      expect(pyRound2(Math.max(0.05, Math.min(0.95, 0.25 + v.normal_draw)))).toBe(v.prob_true);
    },
  );

  itEachCase(
    errors,
    (r) => `line ${r.line} (${r.value.kind}): raises like Python's ${pythonErrorOf(r.value)}`,
    "line with an expected error",
    async ({ value: v }) => {
      const calls: Record<string, () => Promise<unknown>> = {
        sample_cache_key: () =>
          v.provider_mode === undefined
            ? sampleCacheKeyV1(sampleInput(v))
            : sampleCacheKey({ ...sampleInput(v), providerMode: v.provider_mode }),
        prompt_sha256: () => composePrompt({ ...promptInput(v), schema: v.schema_instructions }),
        run_id: () => runId({ claim: v.claim, model: v.model, promptVersionFull: v.prompt_version, K: v.K, R: v.R }),
      };
      const call = calls[v.kind];
      if (!call) expect.fail(`no engine function raises for a ${v.kind} line`);
      await expectPythonRejection(() => call(), pythonErrorOf(v)!);
    },
  );
});

describe("pyRound2 (the test's Python round(x, 2))", () => {
  // 0.125 and 0.375 are exact doubles: Python rounds the ties to even (0.12, 0.38); 0.135 is really
  // 0.13500000000000000888…, so it rounds up; 0.145 is 0.14499999999999999001…, so it rounds down.
  it("rounds exact ties to even and everything else by the exact binary value", () => {
    expect([0.125, 0.375, 0.135, 0.145, 0.26].map(pyRound2)).toEqual([0.12, 0.38, 0.14, 0.14, 0.26]);
  });
});

describe("composePrompt", () => {
  // "☕" is one code point but one UTF-16 unit; "𝔸" is one code point but two units.
  it("counts prompt length in code points", async () => {
    const p = await composePrompt({ system: "", userTemplate: "", paraphrase: "{CLAIM}", claim: "𝔸", schema: "" });
    expect(p.prompt_char_len).toBe("\n\n".length + "\n\n".length + 1 + "\n\n".length);
  });

  it("replaces every {CLAIM} and treats $ in the claim literally", async () => {
    const p = await composePrompt({
      system: "s",
      userTemplate: "{CLAIM}/{CLAIM}",
      paraphrase: "{CLAIM}",
      claim: "$&x",
      schema: "S",
    });
    expect(p.user_text).toBe("$&x\n\n$&x/$&x");
  });
});
