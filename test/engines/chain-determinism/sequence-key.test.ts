import { describe, expect, it } from "vitest";
import { cliDisplayKey, parseArguments, seqFull, seqKey, seqKeySha256, toolCallsHash } from "../../../src/engines/chain-determinism/index.ts";
import { lossless, referenceFiles } from "../../support/reference.ts";

const { lines: refLines } = referenceFiles("chain-determinism");

const vectors = refLines("seq_hash_vectors.jsonl").map((line, i) => ({ i, ...JSON.parse(line) }));

describe("seq_hash_vectors.jsonl", () => {
  it("has the 62 lines the README announces", () => {
    expect(vectors).toHaveLength(62);
  });

  const ok = vectors.filter((v) => !v.expected.error);
  const bad = vectors.filter((v) => v.expected.error);

  it.each(ok.map((v) => [v.i, v.desc, v] as const))("line %i (%s): calls_json gives seq_full, seq_key and its sha256", async (_i, _d, v) => {
    const calls = lossless(v.calls_json);
    expect(seqFull(calls)).toEqual(v.expected.seq_full);
    expect(seqKey(calls)).toBe(v.expected.seq_key);
    expect(await seqKeySha256(calls)).toBe(v.expected.seq_key_sha256);
  });

  it.each(ok.filter((v) => v.calls && !v.needs_lossless_parse).map((v) => [v.i, v.desc, v] as const))(
    "line %i (%s): plain JSON.parse calls give the same key",
    (_i, _d, v) => {
      expect(seqKey(v.calls)).toBe(v.expected.seq_key);
    },
  );

  it.each(vectors.filter((v) => v.raw_tool_calls).map((v) => [v.i, v.desc, v] as const))(
    "line %i (%s): raw arguments through the loop's parser give the reference entries and key",
    (_i, _d, v) => {
      const built = v.raw_tool_calls.map((c: { name: string; arguments: string }, k: number) => {
        const { args, malformed } = parseArguments(c.arguments);
        return { name: c.name, args, tool_call_id: `call_${k}`, ...(malformed ? { args_malformed: true } : {}) };
      });
      // Both sides in the stored form; JSON.stringify writes 1.0 / big ints back verbatim (raw JSON).
      expect(JSON.stringify(built)).toBe(JSON.stringify(lossless(v.calls_json)));
      expect(seqKey(built)).toBe(v.expected.seq_key);
    },
  );

  it.each(ok.map((v) => [v.i, v.desc, v] as const))("line %i (%s): dataset tool_calls_hash and CLI display key", async (_i, _d, v) => {
    const calls = lossless(v.calls_json);
    if (v.expected.tool_calls_hash === null) {
      expect(v.expected.tool_calls_hash_error).toMatch(/Error$/);
      await expect(toolCallsHash(calls)).rejects.toThrow(TypeError);
    } else {
      expect(await toolCallsHash(calls)).toBe(v.expected.tool_calls_hash);
    }
    expect(cliDisplayKey(calls)).toEqual(v.expected.cli_display_key);
  });

  it.each(bad.map((v) => [v.i, v.desc, v] as const))("line %i (%s): throws %s", (_i, _d, v) => {
    expect(v.expected.error).toBe("TypeError");
    expect(() => seqKey(v.calls)).toThrow(TypeError);
    expect(() => seqKey(lossless(v.calls_json))).toThrow(TypeError);
  });
});

describe("seqKey", () => {
  it("sorts object keys by code point, not UTF-16 unit", () => {
    // U+FF5E is one unit 0xFF5E; U+1F600 is the pair D83D DE00. By unit the emoji sorts first,
    // by code point (0x1F600 > 0xFF5E) it sorts last.
    const key = seqKey([{ name: "t", args: { "\u{1F600}": 1, "\uFF5E": 2 } }]);
    expect(key).toBe('[["t",["dict",[["\uFF5E",["int","2"]],["\u{1F600}",["int","1"]]]]]]');
  });

  it("does not normalise Unicode", () => {
    expect(seqKey([{ name: "t", args: { s: "caf\u00e9" } }])).not.toBe(seqKey([{ name: "t", args: { s: "cafe\u0301" } }]));
  });

  it("treats a null sequence as empty and rejects a non-array", () => {
    expect(seqKey(null)).toBe("[]");
    expect(() => seqKey({ name: "x" })).toThrow(TypeError);
  });
});
