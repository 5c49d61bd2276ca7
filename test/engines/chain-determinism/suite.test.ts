import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FINAL_ANSWER, validateSuite, type Suite } from "../../../src/engines/chain-determinism/index.ts";

const DEFAULT = path.resolve(import.meta.dirname, "../../../prompts/chain-determinism/default-suite.json");
const load = (): Suite => JSON.parse(readFileSync(DEFAULT, "utf8"));

describe("prompts/chain-determinism/default-suite.json", () => {
  it("validates", () => {
    expect(() => validateSuite(load())).not.toThrow();
  });

  it("is version cd-default-v1 with 22 unique tool names (21 primitives + final_answer)", () => {
    const s = load();
    const names = s.tools.map((t) => t.function.name);
    expect(s.version).toBe("cd-default-v1");
    expect(names).toHaveLength(22);
    expect(new Set(names).size).toBe(22);
    expect(names.filter((n) => n !== FINAL_ANSWER)).toHaveLength(21);
    expect(Object.keys(s.stubs).sort()).toEqual(names.filter((n) => n !== FINAL_ANSWER).sort());
  });

  it("has 10 queries of at least 8 distinct types, each stub being JSON", () => {
    const s = load();
    expect(s.queries).toHaveLength(10);
    expect(new Set(s.queries.map((q) => q.query_type)).size).toBeGreaterThanOrEqual(8);
    for (const text of Object.values(s.stubs)) expect(() => JSON.parse(text)).not.toThrow();
  });
});

describe("validateSuite", () => {
  it.each([null, [], "suite", 3])("rejects a non-object suite (%j)", (x) => {
    expect(() => validateSuite(x)).toThrow(TypeError);
  });

  type Mut = (s: any) => void;
  it.each<[string, Mut, RegExp, ErrorConstructor]>([
    ["missing version", (s) => delete s.version, /^validateSuite: version /, TypeError],
    ["empty system prompt", (s) => (s.system_prompt = " "), /system_prompt/, RangeError],
    ["tool without a name", (s) => delete s.tools[3].function.name, /tools\[3\]\.function\.name/, TypeError],
    ["bad tool name", (s) => (s.tools[2].function.name = "has space"), /tools\[2\]\.function\.name/, RangeError],
    [
      "duplicate tool name",
      (s) => (s.tools[1].function.name = s.tools[0].function.name),
      /tools\[1\]\.function\.name .* duplicate/,
      RangeError,
    ],
    [
      "no final_answer",
      (s) => (s.tools = s.tools.filter((t: any) => t.function.name !== FINAL_ANSWER)),
      /final_answer/,
      RangeError,
    ],
    [
      "final_answer without a string answer",
      (s) => (s.tools.at(-1).function.parameters.properties.answer.type = "integer"),
      /properties\.answer/,
      RangeError,
    ],
    ["missing stub", (s) => delete s.stubs[s.tools[4].function.name], /stubs\.\w+ is missing/, RangeError],
    [
      "non-string stub",
      (s) => (s.stubs[s.tools[4].function.name] = { a: 1 }),
      /stubs\.\w+ must be a string/,
      TypeError,
    ],
    ["stub for an unknown tool", (s) => (s.stubs.nope = "{}"), /stubs\.nope/, RangeError],
    ["stub for final_answer", (s) => (s.stubs.final_answer = "{}"), /stubs\.final_answer/, RangeError],
    ["no queries", (s) => (s.queries = []), /queries must not be empty/, RangeError],
    [
      "duplicate query id",
      (s) => (s.queries[5].query_id = s.queries[2].query_id),
      /queries\[5\]\.query_id/,
      RangeError,
    ],
    ["missing user", (s) => delete s.queries[3].user, /queries\[3\]\.user/, TypeError],
    ["non-string query_type", (s) => (s.queries[0].query_type = 3), /queries\[0\]\.query_type/, TypeError],
  ])("rejects %s", (_name, mutate, message, kind) => {
    const s = load();
    mutate(s);
    expect(() => validateSuite(s)).toThrow(kind);
    expect(() => validateSuite(s)).toThrow(message);
  });
});
