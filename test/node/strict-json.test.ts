// Issue 14 (hardening), items 1 and 7: request bodies get a nesting limit checked before anything
// recursive sees them, and repeated keys are refused. The scanner that does both must accept exactly
// the texts JSON.parse accepts, and must itself never recurse.
import { describe, expect, it } from "vitest";
import { checkJson, type JsonCheck } from "../../src/json/strict-json.ts";

const deepArray = (n: number) => "[".repeat(n) + "]".repeat(n);
const deepObject = (n: number, key = "a") => `{"${key}":`.repeat(n) + "1" + "}".repeat(n);
const fields = (r: JsonCheck) => ("fields" in r ? r.fields : null);

/** mulberry32: a seeded generator, so that a failing case can be replayed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  "{",
  "}",
  "[",
  "]",
  ",",
  ":",
  '"',
  '"a"',
  '"b"',
  '"\\u00e9"',
  '"\\x"',
  '"\\u12"',
  "\\",
  "1",
  "-",
  "0",
  "01",
  ".5",
  "1.",
  "1e",
  "1e+2",
  "-0.0E-1",
  "true",
  "tru",
  "null",
  "false",
  " ",
  "\n",
  "\t",
  "\r",
  "\u000b",
  "\u00a0",
  "\u0001",
  "\u001f",
  "\u007f",
  "\ufeff",
  "\ud800",
  "x",
];

function randomText(next: () => number): string {
  let out = "";
  const n = 1 + Math.floor(next() * 12);
  for (let k = 0; k < n; k++) out += PIECES[Math.floor(next() * PIECES.length)];
  return out;
}

function randomValue(next: () => number, depth: number): unknown {
  const r = next();
  if (depth > 4 || r < 0.4)
    return [null, true, false, 0, -1.5, 1e21, "s", 'é\n"', "\ud83d\ude00"][Math.floor(next() * 9)];
  if (r < 0.7) return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth + 1));
  const o: Record<string, unknown> = {};
  for (let k = Math.floor(next() * 4); k > 0; k--) o[`k${Math.floor(next() * 1000)}`] = randomValue(next, depth + 1);
  return o;
}

/** A few random edits of a valid text: the cases that sit right next to valid JSON. */
function mutate(text: string, next: () => number): string {
  let s = text;
  for (let k = 1 + Math.floor(next() * 3); k > 0; k--) {
    const at = Math.floor(next() * (s.length + 1));
    const r = next();
    if (r < 0.4) s = s.slice(0, at) + s.slice(at + 1);
    else if (r < 0.8) s = s.slice(0, at) + PIECES[Math.floor(next() * PIECES.length)] + s.slice(at);
    else
      s =
        s.slice(0, at) +
        s
          .slice(at, at + 3)
          .split("")
          .reverse()
          .join("") +
        s.slice(at + 3);
  }
  return s;
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

describe("checkJson", () => {
  it("accepts exactly what JSON.parse accepts (random texts and near-misses of valid ones)", () => {
    const next = rng(14);
    const mismatches: string[] = [];
    let valid = 0;
    for (let n = 0; n < 20_000; n++) {
      const text =
        n % 2 === 0
          ? randomText(next)
          : mutate(JSON.stringify(randomValue(next, 0), null, n % 4 === 1 ? 1 : undefined), next);
      // A repeated key or depth is a field problem, not a syntax error: the text is still JSON.
      const accepted = !("syntax" in checkJson(text, { maxDepth: 1000 }));
      if (accepted !== parses(text)) mismatches.push(JSON.stringify(text));
      if (accepted) valid++;
    }
    expect(mismatches.slice(0, 5)).toEqual([]);
    // Both sides of the line are well represented (the seed is fixed, so this is not luck).
    expect(valid).toBeGreaterThan(2_000);
    expect(20_000 - valid).toBeGreaterThan(2_000);
  });

  it.each([
    ["a bare value", '"x"'],
    ["numbers", "[0,-0,1.5e-3,1E+2,-12.25]"],
    ["escapes", '{"a\\"b":"\\u00e9\\n\\/\\ud83d"}'],
    ["whitespace everywhere", ' \t\r\n{ "a" : [ 1 , 2 ] } \n'],
    ["empty containers", '{"a":{},"b":[],"c":[{}]}'],
    ["__proto__ as an ordinary key", '{"__proto__":1,"constructor":2}'],
  ])("accepts %s", (_, text) => {
    expect(checkJson(text, { maxDepth: 64 })).toEqual({ ok: true });
  });

  it("reports a syntax error with its position", () => {
    const r = checkJson('{\n  "prompt": "a",\n}', { maxDepth: 64 });
    expect(r).toEqual({
      ok: false,
      syntax: { message: "unexpected '}' where a property name was expected", offset: 19, line: 3, column: 1 },
    });
    expect(checkJson("", { maxDepth: 64 })).toMatchObject({
      syntax: { message: "unexpected end of input where a value was expected" },
    });
    expect(checkJson('{"a":1} x', { maxDepth: 64 })).toMatchObject({
      syntax: { message: "unexpected 'x' after the end of the JSON value" },
    });
  });

  it("allows exactly maxDepth levels and names the first container past them", () => {
    expect(checkJson(deepArray(64), { maxDepth: 64 })).toEqual({ ok: true });
    expect(checkJson(deepObject(64), { maxDepth: 64 })).toEqual({ ok: true });
    const body = `{"items":[{"id":"x","context":${deepObject(3000)}}]}`;
    const f = fields(checkJson(body, { maxDepth: 64 }))!;
    expect(f).toHaveLength(1);
    // Levels: the body 1, items 2, items.0 3, context 4, and context.a…a (k a's) 4 + k: the first
    // container past 64 is the 65th, whose path is items.0.context and 61 a's.
    expect(f[0].path).toBe(["items", "0", "context", ...Array(61).fill("a")].join("."));
    expect(f[0].path.split(".")).toHaveLength(64);
    expect(f[0].message).toBe("nests deeper than 64 levels of objects and arrays");
    expect(fields(checkJson(deepArray(65), { maxDepth: 64 }))![0].path).toBe(
      Array.from({ length: 64 }, () => "0").join("."),
    );
    expect(fields(checkJson("[[1]]", { maxDepth: 1 }))![0].path).toBe("0");
  });

  it("never recurses: a million levels is an answer, not a stack overflow", () => {
    expect(fields(checkJson(deepArray(1_000_000), { maxDepth: 64 }))).toHaveLength(1);
    // Even with no effective limit the scan is iterative (and its frames are all it keeps).
    expect(checkJson(deepArray(1_000_000), { maxDepth: 2_000_000 })).toEqual({ ok: true });
    expect(checkJson(deepObject(200_000), { maxDepth: 2_000_000 })).toEqual({ ok: true });
  });

  it("names every repeated key by its path, comparing keys after unescaping", () => {
    const text =
      '{"pairs":[{"prompt":"a","response":"b"},{"prompt":"a","\\u0070rompt":"c","response":"d"}],"x":{"y":{"z":1,"z":2}},"x":0}';
    expect(fields(checkJson(text, { maxDepth: 64 }))).toEqual([
      { path: "pairs.1.prompt", message: "duplicate key" },
      { path: "x.y.z", message: "duplicate key" },
      { path: "x", message: "duplicate key" },
    ]);
    // The same key in sibling objects is not a repeat.
    expect(checkJson('[{"a":1},{"a":2}]', { maxDepth: 64 })).toEqual({ ok: true });
  });

  it("keeps the answer short for a body full of repeats, and a syntax error still wins", () => {
    const many = "{" + Array.from({ length: 1000 }, () => '"a":1').join(",") + "}";
    expect(fields(checkJson(many, { maxDepth: 64 }))).toHaveLength(10);
    expect(checkJson('{"a":1,"a":2', { maxDepth: 64 })).toMatchObject({
      syntax: { message: "unexpected end of input where ',' or '}' was expected" },
    });
  });

  it("refuses a limit below 1", () => {
    expect(() => checkJson("{}", { maxDepth: 0 })).toThrow(RangeError);
  });
});
