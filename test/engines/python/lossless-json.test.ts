import { describe, expect, it } from "vitest";
import { seqKey } from "../../../src/engines/chain-determinism/index.ts";
import {
  fromPlain,
  parseLossless,
  parsePyJson,
  pyFloatJson,
  pyFloatRepr,
  pyRepr,
  toPlain,
} from "../../../src/engines/python/index.ts";

const parse = (s: string) => {
  const r = parsePyJson(s);
  if (!r.ok) throw new Error(r.error);
  return r.value;
};

describe("parsePyJson", () => {
  it("types numbers by lexeme and keeps big ints exact", () => {
    expect(parse("1")).toEqual({ t: "int", v: 1n });
    expect(parse("1.0")).toEqual({ t: "float", v: 1 });
    expect(parse("1E2")).toEqual({ t: "float", v: 100 });
    expect(parse("-0")).toEqual({ t: "int", v: 0n });
    expect(parse("123456789012345678901234567890")).toEqual({ t: "int", v: 123456789012345678901234567890n });
    expect(parse("1e400")).toEqual({ t: "float", v: Infinity });
  });

  it("accepts NaN and ±Infinity and keeps the last duplicate key at the first position", () => {
    expect(parse("[NaN, Infinity, -Infinity]")).toEqual({
      t: "list",
      items: [
        { t: "float", v: NaN },
        { t: "float", v: Infinity },
        { t: "float", v: -Infinity },
      ],
    });
    expect(parse('{"a": 1, "b": 2, "a": 3}')).toEqual({
      t: "dict",
      entries: [
        ["a", { t: "int", v: 3n }],
        ["b", { t: "int", v: 2n }],
      ],
    });
  });

  it.each([
    "",
    " ",
    "{",
    '{"a":1,}',
    "[1,]",
    "01",
    "1.",
    ".5",
    "+1",
    "nan",
    "'a'",
    '"a\u0001"',
    '"\\x"',
    "{} x",
    "\ufeff{}",
    '"\\u12G4"',
  ])("rejects %j like json.loads", (s) => {
    expect(parsePyJson(s).ok).toBe(false);
  });

  it("joins escaped surrogate pairs and allows a lone one", () => {
    expect(parse('"\\ud83d\\ude00"')).toEqual({ t: "str", v: "\u{1F600}" });
    expect(parse('"\\ud83d"')).toEqual({ t: "str", v: "\ud83d" });
  });

  it("rejects ints over CPython's 4300-digit limit", () => {
    expect(parsePyJson("9".repeat(4300)).ok).toBe(true);
    expect(parsePyJson("9".repeat(4301)).ok).toBe(false);
  });

  it("round-trips through the stored form without losing int/float", () => {
    const v = parse('{"i": 1, "f": 1.0, "e": 1e16, "z": -0.0, "big": 9007199254740993, "__proto__": [0.5]}');
    const plain = toPlain(v);
    expect(JSON.stringify(plain)).toBe('{"i":1,"f":1.0,"e":1e+16,"z":-0.0,"big":9007199254740993,"__proto__":[0.5]}');
    expect(fromPlain(plain)).toEqual(v);
  });
});

describe("parseLossless", () => {
  it("reads a stored row back with the same sequence key, where JSON.parse would not", () => {
    const row = { tool_call_sequence: [{ name: "take", args: toPlain(parse('{"n": 1.0}')) }] };
    const text = JSON.stringify(row);
    expect(text).toBe('{"tool_call_sequence":[{"name":"take","args":{"n":1.0}}]}');
    const back = parseLossless(text) as typeof row;
    expect(seqKey(back.tool_call_sequence)).toBe(seqKey(row.tool_call_sequence));
    expect(seqKey(JSON.parse(text).tool_call_sequence)).not.toBe(seqKey(row.tool_call_sequence));
    expect(() => parseLossless("{")).toThrow(SyntaxError);
  });
});

describe("pyFloatRepr", () => {
  it.each([
    [1, "1.0"],
    [-0, "-0.0"],
    [0.1, "0.1"],
    [1e-5, "1e-05"],
    [0.0001, "0.0001"],
    [1e16, "1e+16"],
    [1e15, "1000000000000000.0"],
    [1.2345e17, "1.2345e+17"],
    [5e-324, "5e-324"],
    [123456789.125, "123456789.125"],
    [Infinity, "inf"],
    [-Infinity, "-inf"],
    [NaN, "nan"],
  ])("%d → %s", (x, s) => {
    expect(pyFloatRepr(x)).toBe(s);
  });
});

describe("pyRepr", () => {
  it.each([
    ['"alice"', "'alice'"],
    [`"it's"`, `"it's"`],
    [`"it's \\"x\\""`, `'it\\'s "x"'`],
    ["null", "None"],
    ["[true, false]", "[True, False]"],
    ["1.50", "1.5"],
    ['{"a": [1, 2.0, "x"]}', "{'a': [1, 2.0, 'x']}"],
    ['"tab\\there\\u00a0\\u0085"', "'tab\\there\\xa0\\x85'"],
    ['"caf\\u00e9 \\ud83e\\udda0"', "'caf\u00e9 \u{1F9A0}'"],
  ])("repr(json.loads(%s)) == %s", (json, repr) => {
    expect(pyRepr(parse(json))).toBe(repr);
  });
});

// Issue "A suite you can trust": the harness's summary is written by json.dumps, so its floats read as
// Python writes them.
describe("pyFloatJson", () => {
  it.each([
    [0, "0.0"],
    [1, "1.0"],
    [0.25, "0.25"],
    [0.00001, "1e-05"],
    [1e16, "1e+16"],
    [-0, "-0.0"],
  ])("%d is written %s", (x, text) => {
    expect(JSON.stringify({ x: pyFloatJson(x) })).toBe(`{"x":${text}}`);
  });

  it("leaves NaN a number (JSON has no NaN)", () => {
    expect(pyFloatJson(NaN)).toBeNaN();
  });
});
