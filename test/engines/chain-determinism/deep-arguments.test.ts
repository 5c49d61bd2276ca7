// Issue 14 (hardening), item 1: no input may overflow a stack, model outputs included. A hostile or
// broken endpoint can send tool-call arguments nested to any depth; past PY_JSON_MAX_DEPTH they are
// unparsable (spec §2 "parse fails -> malformed", as CPython's RecursionError makes them), and anything
// accepted must survive the whole path of a replay record: stored with JSON.stringify, read back with
// parseLossless, keyed with seqKey / toolCallsHash / cliDisplayKey.
import { describe, expect, it } from "vitest";
import type { ChatClient, ChatResponse } from "../../../src/providers/types.ts";
import {
  cliDisplayKey,
  parseArguments,
  runReplay,
  seqKey,
  toolCallsHash,
} from "../../../src/engines/chain-determinism/index.ts";
import { fromPlain, parseLossless } from "../../../src/engines/python/index.ts";
import { PY_JSON_MAX_DEPTH, STORED_MAX_DEPTH } from "../../../src/engines/python/lossless-json.ts";

/** `{"x": [[…[]…]]}`: the innermost list sits `n` containers below the arguments object. */
const deepArgs = (n: number) => '{"x":' + "[".repeat(n) + "]".repeat(n) + "}";
/** `{"a": {"a": … {"a": 1}}}`: `n` objects. */
const deepDicts = (n: number) => '{"a":'.repeat(n) + "1" + "}".repeat(n);

/** One turn calling `t` with `args`, then one calling final_answer. */
function endpoint(args: string): ChatClient {
  let n = 0;
  return {
    async chat() {
      const call =
        n++ === 0
          ? { id: "c1", name: "t", arguments: args }
          : { id: "c2", name: "final_answer", arguments: '{"answer": "done"}' };
      return {
        choices: [
          {
            message: {
              role: "assistant",
              content: null,
              tool_calls: [{ id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } }],
            },
            finish_reason: "tool_calls",
          },
        ],
      } satisfies ChatResponse;
    },
  };
}

async function replay(args: string) {
  const { record } = await runReplay({
    chat: endpoint(args),
    model: "m",
    systemPrompt: "s",
    user: "u",
    tools: [],
    stubs: { t: "ok" },
  });
  return record;
}

describe("tool-call arguments nested past any reasonable depth", () => {
  it.each([
    ["10,000 lists", deepArgs(10_000)],
    ["10,000 objects", deepDicts(10_000)],
    ["10,000 lists at the top", "[".repeat(10_000) + "]".repeat(10_000)],
  ])("are malformed, not a crash: %s", async (_, text) => {
    expect(parseArguments(text)).toEqual({
      args: { _raw_arguments_len: text.length, _raw_arguments_head: text.slice(0, 80) },
      malformed: true,
    });
    const record = await replay(text);
    expect(record.error_category).toBeNull();
    expect(record.final_answer).toBe("done");
    expect(record.tool_call_sequence[0]).toMatchObject({
      name: "t",
      args_malformed: true,
      args: { _raw_arguments_len: text.length },
    });
  });

  it("draws the line at PY_JSON_MAX_DEPTH containers below the arguments", () => {
    expect(parseArguments(deepArgs(PY_JSON_MAX_DEPTH)).malformed).toBe(false);
    expect(parseArguments(deepArgs(PY_JSON_MAX_DEPTH + 1)).malformed).toBe(true);
  });

  it("keeps the deepest accepted arguments usable through storage and every key", async () => {
    const record = await replay(deepArgs(PY_JSON_MAX_DEPTH));
    expect(record.tool_call_sequence[0].args_malformed).toBeUndefined();
    // As the evaluator stores a unit's output and reads it back in the aggregate: wrapped in a few levels.
    const output = { row: { ...record, query_id: "q", run_idx: 0 }, turns: [] };
    const back = parseLossless(JSON.stringify(output)) as { row: { tool_call_sequence: unknown[] } };
    const sequence = back.row.tool_call_sequence;
    expect(seqKey(sequence)).toBe(seqKey(record.tool_call_sequence));
    expect(seqKey(sequence)).toContain('["list",[["list",[');
    expect(await toolCallsHash(sequence)).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(cliDisplayKey(sequence)[1]).toEqual(["final_answer", '{"answer": "done"}']);
  });

  it("fromPlain refuses a value deeper than anything stored with a TypeError, not a stack overflow", () => {
    const deep = JSON.parse("[".repeat(100_000) + "]".repeat(100_000));
    expect(() => fromPlain(deep)).toThrow(TypeError);
    expect(() => seqKey([{ name: "t", args: deep }])).toThrow(/nests deeper than/);
    expect(() =>
      fromPlain(JSON.parse("[".repeat(STORED_MAX_DEPTH + 1) + "]".repeat(STORED_MAX_DEPTH + 1))),
    ).not.toThrow();
  });
});
