import { describe, expect, it } from "vitest";
import {
  cliDisplayKey,
  parseArguments,
  seqFull,
  seqKey,
  seqKeySha256,
  toolCallsHash,
} from "../../../src/engines/chain-determinism/index.ts";
import {
  describeReference,
  expectPythonError,
  expectPythonRejection,
  itEachCase,
  lossless,
  type RefLine,
} from "../../support/reference.ts";
import { lineName, typed } from "./parity.ts";

type SeqLine = {
  desc?: string;
  /** The entries as standard JSON; absent when they are not (NaN, Infinity). */
  calls?: unknown;
  /** Python json.dumps text of the same entries: the lossless source. */
  calls_json: string;
  raw_tool_calls?: Array<{ name: string; arguments: string | null }>;
  needs_lossless_parse?: boolean;
  expected: {
    seq_full?: unknown;
    seq_key?: string;
    seq_key_sha256?: string;
    tool_calls_hash?: string | null;
    tool_calls_hash_error?: string;
    cli_display_key?: unknown;
    /** Python exception class when seq_full raises. */
    error?: string;
  };
};

// Every test reads its lines from the folder and picks the kind of line it needs by content.
describeReference("seq_hash_vectors.jsonl", "chain-determinism", ["seq_hash_vectors.jsonl"], (ref) => {
  const lines = ref.records<SeqLine>("seq_hash_vectors.jsonl");
  const keyed = lines.filter((r) => r.value.expected.error === undefined);
  const raising = lines.filter((r) => r.value.expected.error !== undefined);
  const name = (what: string) => (r: RefLine<SeqLine>) => lineName(r, what);

  it("has only lines with a key or an expected error", () => {
    // A line of neither kind would be run by no test below.
    for (const r of lines)
      expect(
        typeof r.value.expected.seq_key === "string" || typeof r.value.expected.error === "string",
        lineName(r),
      ).toBe(true);
  });

  itEachCase(
    keyed,
    name("calls_json gives seq_full, seq_key and its sha256"),
    "line with an expected seq_key",
    async (r) => {
      const e = r.value.expected;
      const calls = lossless(r.value.calls_json);
      // seq_full read losslessly too, so a float name or payload would keep its type.
      expect(typed(seqFull(calls))).toEqual(
        typed((lossless(r.text) as { expected: { seq_full: unknown } }).expected.seq_full),
      );
      expect(seqKey(calls)).toBe(e.seq_key);
      expect(await seqKeySha256(calls)).toBe(e.seq_key_sha256);
    },
  );

  itEachCase(
    keyed.filter((r) => r.value.calls !== undefined),
    name("calls read losslessly from the line give the key"),
    "line with a calls field and an expected seq_key",
    (r) => {
      // The line's own `calls` field, read as Python json.loads would (1.0 stays a float).
      const { calls } = lossless(r.text) as { calls: unknown };
      expect(seqKey(calls)).toBe(r.value.expected.seq_key);
    },
  );

  itEachCase(
    keyed.filter((r) => r.value.calls !== undefined && r.value.needs_lossless_parse === false),
    name("plain JSON.parse calls give the same key"),
    "line whose calls JSON.parse keeps intact (needs_lossless_parse false)",
    (r) => {
      expect(seqKey(r.value.calls)).toBe(r.value.expected.seq_key);
    },
  );

  itEachCase(
    lines.filter((r) => Array.isArray(r.value.raw_tool_calls)),
    name("raw arguments through the loop's parser give the reference entries"),
    "line with raw_tool_calls",
    (r) => {
      const want = lossless(r.value.calls_json) as Array<{ tool_call_id?: unknown }>;
      const built = r.value.raw_tool_calls!.map((c, k) => {
        const { args, malformed } = parseArguments(c.arguments);
        // The id is passed through by the loop, not parsed: take the one the reference recorded.
        return {
          name: c.name,
          args,
          tool_call_id: want[k]?.tool_call_id,
          ...(malformed ? { args_malformed: true } : {}),
        };
      });
      // Typed on both sides: 1 vs 1.0, big ints, NaN and key order all count.
      expect(typed(built)).toEqual(typed(want));
      if (r.value.expected.seq_key !== undefined) expect(seqKey(built)).toBe(r.value.expected.seq_key);
    },
  );

  itEachCase(
    keyed.filter((r) => typeof r.value.expected.tool_calls_hash === "string"),
    name("dataset tool_calls_hash"),
    "line with a tool_calls_hash",
    async (r) => {
      expect(await toolCallsHash(lossless(r.value.calls_json))).toBe(r.value.expected.tool_calls_hash);
    },
  );

  itEachCase(
    keyed.filter((r) => typeof r.value.expected.tool_calls_hash_error === "string"),
    (r) => lineName(r, `tool_calls_hash raises like ${r.value.expected.tool_calls_hash_error}`),
    "line whose tool_calls_hash raises (tool_calls_hash_error)",
    async (r) => {
      await expectPythonRejection(
        () => toolCallsHash(lossless(r.value.calls_json)),
        r.value.expected.tool_calls_hash_error!,
      );
    },
  );

  itEachCase(
    keyed.filter((r) => r.value.expected.cli_display_key !== undefined),
    name("CLI display key"),
    "line with a cli_display_key",
    (r) => {
      expect(cliDisplayKey(lossless(r.value.calls_json))).toEqual(r.value.expected.cli_display_key);
    },
  );

  itEachCase(
    raising,
    (r) => lineName(r, `seq_full raises like ${r.value.expected.error}`),
    "line whose seq_full raises (expected.error)",
    (r) => {
      const pyClass = r.value.expected.error!;
      expectPythonError(() => seqKey(lossless(r.value.calls_json)), pyClass);
      expectPythonError(() => seqFull(lossless(r.value.calls_json)), pyClass);
      if (r.value.calls !== undefined) expectPythonError(() => seqKey(r.value.calls), pyClass);
    },
  );
});

describe("seqKey", () => {
  it("sorts object keys by code point, not UTF-16 unit", () => {
    // U+FF5E is one unit 0xFF5E; U+1F600 is the pair D83D DE00. By unit the emoji sorts first,
    // by code point (0x1F600 > 0xFF5E) it sorts last.
    const key = seqKey([{ name: "t", args: { "\u{1F600}": 1, "\uFF5E": 2 } }]);
    expect(key).toBe('[["t",["dict",[["\uFF5E",["int","2"]],["\u{1F600}",["int","1"]]]]]]');
  });

  it("does not normalise Unicode", () => {
    expect(seqKey([{ name: "t", args: { s: "caf\u00e9" } }])).not.toBe(
      seqKey([{ name: "t", args: { s: "cafe\u0301" } }]),
    );
  });

  it("treats a null sequence as empty and rejects a non-array", () => {
    expect(seqKey(null)).toBe("[]");
    expect(() => seqKey({ name: "x" })).toThrow(TypeError);
  });
});
