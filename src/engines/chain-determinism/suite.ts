/**
 * The suite a chain-determinism run replays: the platform stores it (default or user-uploaded)
 * and passes it in. Shape follows spec chain-determinism.md §2–§3: one system prompt, a tool
 * registry sent verbatim, one argument-independent stub text per non-terminal tool, and queries
 * whose user message is already fully rendered.
 */
import type { ToolDefinition } from "../model.ts";

export type SuiteQuery = { query_id: string; query_type?: string; user: string };

export type Suite = {
  version: string;
  system_prompt: string;
  tools: ToolDefinition[];
  stubs: Record<string, string>;
  queries: SuiteQuery[];
};

/** The terminal tool every suite must offer (§2): `final_answer(answer: string)`, never stubbed. */
export const FINAL_ANSWER = "final_answer";

// OpenAI's function-name rule; anything else is rejected by the endpoints before a replay starts.
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

function str(x: unknown, path: string, nonEmpty = true): string {
  if (typeof x !== "string") throw new TypeError(`validateSuite: ${path} must be a string`);
  if (nonEmpty && x.trim() === "") throw new RangeError(`validateSuite: ${path} must not be empty`);
  return x;
}

function arr(x: unknown, path: string): unknown[] {
  if (!Array.isArray(x)) throw new TypeError(`validateSuite: ${path} must be an array`);
  return x;
}

/**
 * Checks that `x` is a usable {@link Suite} and returns it typed (the same object, unchanged).
 * Rules: `version`, `system_prompt` non-empty strings; every tool is `{type: "function", function:
 * {name, …}}` with a unique OpenAI-valid name and an object `parameters` if present; a
 * `final_answer` tool whose parameters declare `answer` as a string; a string stub for every other
 * tool and no stub for unknown tools or for `final_answer`; at least one query; query ids unique
 * non-empty strings; `user` a non-empty string; `query_type` a string when present.
 * @throws TypeError for a wrong type, RangeError for a bad value; the message names the field path
 * (e.g. `queries[3].user`).
 */
export function validateSuite(x: unknown): Suite {
  if (!isObject(x)) throw new TypeError("validateSuite: suite must be an object");
  str(x.version, "version");
  str(x.system_prompt, "system_prompt");

  const names = new Set<string>();
  arr(x.tools, "tools").forEach((t, i) => {
    const path = `tools[${i}]`;
    if (!isObject(t)) throw new TypeError(`validateSuite: ${path} must be an object`);
    if (t.type !== "function") throw new RangeError(`validateSuite: ${path}.type must be "function"`);
    if (!isObject(t.function)) throw new TypeError(`validateSuite: ${path}.function must be an object`);
    const name = str(t.function.name, `${path}.function.name`);
    if (!TOOL_NAME.test(name)) throw new RangeError(`validateSuite: ${path}.function.name must match ${TOOL_NAME}`);
    if (names.has(name)) throw new RangeError(`validateSuite: ${path}.function.name "${name}" is a duplicate`);
    names.add(name);
    if (t.function.description !== undefined) str(t.function.description, `${path}.function.description`, false);
    if (t.function.parameters !== undefined && !isObject(t.function.parameters))
      throw new TypeError(`validateSuite: ${path}.function.parameters must be an object`);
    if (name === FINAL_ANSWER) {
      const props = (t.function.parameters as Record<string, unknown> | undefined)?.properties;
      const answer = isObject(props) ? props.answer : undefined;
      if (!isObject(answer) || answer.type !== "string")
        throw new RangeError(`validateSuite: ${path}.function.parameters.properties.answer must be {type: "string"}`);
    }
  });
  if (!names.has(FINAL_ANSWER)) throw new RangeError(`validateSuite: tools must include a "${FINAL_ANSWER}" tool`);

  if (!isObject(x.stubs)) throw new TypeError("validateSuite: stubs must be an object");
  for (const name of names) {
    if (name === FINAL_ANSWER) continue;
    if (!Object.hasOwn(x.stubs, name)) throw new RangeError(`validateSuite: stubs.${name} is missing`);
    str(x.stubs[name], `stubs.${name}`, false);
  }
  for (const name of Object.keys(x.stubs)) {
    if (name === FINAL_ANSWER)
      throw new RangeError(`validateSuite: stubs.${name} must not exist (final_answer is terminal)`);
    if (!names.has(name)) throw new RangeError(`validateSuite: stubs.${name} has no tool of that name`);
  }

  const ids = new Set<string>();
  const queries = arr(x.queries, "queries");
  if (queries.length === 0) throw new RangeError("validateSuite: queries must not be empty");
  queries.forEach((q, i) => {
    const path = `queries[${i}]`;
    if (!isObject(q)) throw new TypeError(`validateSuite: ${path} must be an object`);
    const id = str(q.query_id, `${path}.query_id`);
    if (ids.has(id)) throw new RangeError(`validateSuite: ${path}.query_id "${id}" is a duplicate`);
    ids.add(id);
    if (q.query_type !== undefined) str(q.query_type, `${path}.query_type`);
    str(q.user, `${path}.user`);
  });
  return x as Suite;
}
