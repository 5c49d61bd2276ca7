import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalJson, sha256Hex } from "../../../src/engines/vrty/index.ts";

describe("canonicalJson", () => {
  it("sorts keys by code unit at every level, without whitespace", () => {
    const value = { b: 1, a: { z: [3, { y: 1, x: 2 }], B: true, é: "x" }, _: null };
    expect(canonicalJson(value)).toBe('{"_":null,"a":{"B":true,"z":[3,{"x":2,"y":1}],"é":"x"},"b":1}');
  });

  it("writes numbers and strings exactly as JSON.stringify", () => {
    expect(canonicalJson([4.760416630310818, 1e21, 5.0, -0, 0.1, 'a"\n\u2028'])).toBe(
      JSON.stringify([4.760416630310818, 1e21, 5, -0, 0.1, 'a"\n\u2028']),
    );
  });

  it("omits undefined properties and rejects values JSON cannot carry", () => {
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
    expect(() => canonicalJson({ a: NaN })).toThrow(TypeError);
    expect(() => canonicalJson(Infinity)).toThrow(TypeError);
    expect(() => canonicalJson(10n)).toThrow(TypeError);
    expect(() => canonicalJson(undefined)).toThrow(TypeError);
  });

  it("does not depend on insertion order", () => {
    expect(canonicalJson({ x: 1, y: { p: 1, q: 2 } })).toBe(canonicalJson({ y: { q: 2, p: 1 }, x: 1 }));
  });
});

describe("sha256Hex", () => {
  it("hashes the UTF-8 bytes like node:crypto", async () => {
    for (const text of ["", "abc", "Pàris 巴黎 😀"]) {
      expect(await sha256Hex(text)).toBe(createHash("sha256").update(text, "utf8").digest("hex"));
    }
    expect(await sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});

// Issue 14 (hardening): a suite nesting 5,000 levels in `required` crashed canonicalJson with a stack
// overflow (a 500). The walk is iterative now, so depth is only a matter of memory.
describe("canonicalJson on deep and cyclic values", () => {
  it("writes values nested 100,000 levels, as JSON.stringify would write them", () => {
    const n = 100_000;
    let arrays: unknown = [];
    let objects: unknown = 1;
    for (let i = 0; i < n; i++) {
      arrays = [arrays];
      objects = { b: objects, a: undefined };
    }
    // JSON.stringify itself overflows at this depth, so the expected texts are built by hand.
    expect(canonicalJson(arrays)).toBe("[".repeat(n + 1) + "]".repeat(n + 1));
    expect(canonicalJson(objects)).toBe('{"b":'.repeat(n) + "1" + "}".repeat(n));
  });

  it("agrees with the sorted JSON.stringify on mixed nesting", () => {
    const value = { z: [1, [2, { y: [], x: {} }], undefined, null], a: { c: { e: "s", d: [true] } }, m: [] };
    expect(canonicalJson(value)).toBe('{"a":{"c":{"d":[true],"e":"s"}},"m":[],"z":[1,[2,{"x":{},"y":[]}],null,null]}');
  });

  it("refuses a cyclic value with a TypeError, and accepts a shared (acyclic) one", () => {
    const a: Record<string, unknown> = { x: 1 };
    a.self = { back: a };
    expect(() => canonicalJson(a)).toThrow(/cyclic/);
    const shared = { k: 1 };
    expect(canonicalJson([shared, { s: shared }])).toBe('[{"k":1},{"s":{"k":1}}]');
  });
});
