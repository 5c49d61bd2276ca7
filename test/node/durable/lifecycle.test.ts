// Issue 15 (item 3): the run's lifecycle at its coordinator is one value with listed moves, not a
// status, a `finished` flag and an in-memory promise.
import { describe, expect, it } from "vitest";
import {
  canMove,
  finishDue,
  fromLegacy,
  Lifecycle,
  MOVES,
  statusOf,
  type Phase,
  type PhaseKind,
} from "../../../src/runs/coordinator/lifecycle.ts";
import type { Store } from "../../../src/runs/coordinator/store.ts";

/** The part of Store a Lifecycle uses, in memory. */
function memoryStore(kv: Record<string, unknown> = {}): Store {
  return {
    get: (k: string) => kv[k],
    put: (k: string, v: unknown) => void (kv[k] = v),
    meta: () => kv.meta,
  } as unknown as Store;
}

describe("lifecycle moves", () => {
  it("run new → running → finishing → finished, with a cancel possible until the end", () => {
    expect(canMove("new", "running")).toBe(true);
    expect(canMove("running", "finishing")).toBe(true);
    expect(canMove("finishing", "finished")).toBe(true);
    expect(canMove("running", "canceled")).toBe(true);
    // A cancel during the finish decides its status.
    expect(canMove("finishing", "canceled")).toBe(true);
    expect(canMove("canceled", "finished")).toBe(true);
  });

  it("never leave an end: finished and abandoned are final, and an abandoned run never starts", () => {
    expect(MOVES.finished).toEqual([]);
    expect(MOVES.abandoned).toEqual([]);
    const kinds = Object.keys(MOVES) as PhaseKind[];
    for (const to of kinds) expect(canMove("abandoned", to)).toBe(false);
    expect(canMove("canceled", "running")).toBe(false);
  });

  it("refuse a move not listed", () => {
    const lifecycle = new Lifecycle(memoryStore());
    lifecycle.move({ kind: "running" });
    expect(() => lifecycle.move({ kind: "abandoned", as: "failed" })).toThrow(/no move from running to abandoned/);
    expect(lifecycle.phase).toEqual({ kind: "running" });
  });

  it("are stored under one key", () => {
    const kv: Record<string, unknown> = {};
    const lifecycle = new Lifecycle(memoryStore(kv));
    expect(lifecycle.phase).toEqual({ kind: "new" });
    lifecycle.move({ kind: "running" });
    lifecycle.move({ kind: "finishing" });
    expect(kv).toEqual({ lifecycle: { kind: "finishing" } });
    expect(new Lifecycle(memoryStore(kv)).phase).toEqual({ kind: "finishing" });
  });
});

describe("what a phase means", () => {
  it.each<[Phase, ReturnType<typeof statusOf>, boolean]>([
    [{ kind: "new" }, undefined, false],
    [{ kind: "abandoned", as: "canceled" }, undefined, false],
    [{ kind: "running" }, "running", false],
    [{ kind: "finishing" }, "running", true],
    [{ kind: "canceled" }, "canceled", true],
    [{ kind: "finished", status: "succeeded" }, "succeeded", false],
  ])("%o shows status %s, finish due: %s", (phase, status, due) => {
    expect(statusOf(phase)).toBe(status);
    expect(finishDue(phase)).toBe(due);
  });
});

describe("objects stored before the lifecycle had its own key", () => {
  it.each<[string, Parameters<typeof fromLegacy>, Phase]>([
    ["nothing stored", [undefined, undefined, undefined], { kind: "new" }],
    ["abandoned before a start", [undefined, undefined, "failed"], { kind: "abandoned", as: "failed" }],
    ["running", [{ status: "running" }, undefined, undefined], { kind: "running" }],
    ["canceled, finish not done", [{ status: "canceled" }, undefined, undefined], { kind: "canceled" }],
    ["finished", [{ status: "succeeded" }, true, undefined], { kind: "finished", status: "succeeded" }],
    ["finished failed", [{ status: "failed" }, true, undefined], { kind: "finished", status: "failed" }],
    ["finished canceled", [{ status: "canceled" }, true, undefined], { kind: "finished", status: "canceled" }],
  ])("read as one phase: %s", (_, legacy, phase) => {
    expect(fromLegacy(...legacy)).toEqual(phase);
  });

  it("are migrated once, on first read", () => {
    const kv: Record<string, unknown> = { meta: { runId: "run_x", status: "canceled" }, finished: true };
    expect(new Lifecycle(memoryStore(kv)).phase).toEqual({ kind: "finished", status: "canceled" });
    expect(kv.lifecycle).toEqual({ kind: "finished", status: "canceled" });
  });
});
