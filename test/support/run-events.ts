// What any follower of a run's event stream must have seen, whatever the moments its connections
// polled at and however many there were (issue 23, item 4): the CLI's and the dashboard's tests share it.
import { expect } from "vitest";

export type SeenEvent = { event: string; id: string; data: Record<string, unknown> };
type Unit = { seq: number; unit_id: string; status: string };

/** The run's samples as the API lists them (write order): the sequence its unit events must follow. */
export async function runUnits(server: string, key: string, runId: string): Promise<Unit[]> {
  const out: Unit[] = [];
  let after: string | null = null;
  do {
    const res = await fetch(`${server}/v1/runs/${runId}/samples?limit=100${after ? `&after=${after}` : ""}`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    const page = (await res.json()) as { data: Unit[]; next_cursor: string | null; has_more: boolean };
    out.push(...page.data.map((s) => ({ seq: s.seq, unit_id: s.unit_id, status: s.status })));
    after = page.has_more ? page.next_cursor : null;
  } while (after);
  return out;
}

/**
 * Every unit once, in the API's order; every event id once; progress only forward, never the same
 * twice in a row, never counting a unit not yet seen, ending at the run's own; the final run once, last.
 */
export async function expectExactly(server: string, key: string, events: SeenEvent[], runId: string): Promise<void> {
  const run = (await (
    await fetch(`${server}/v1/runs/${runId}`, { headers: { Authorization: `Bearer ${key}` } })
  ).json()) as {
    status: string;
    progress: { done: number; failed: number; total: number };
  };
  expect(events.filter((e) => e.event === "unit").map((e) => e.data)).toEqual(await runUnits(server, key, runId));
  expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  let unitsSoFar = 0;
  let previous: { done: number; failed: number; status: string } | null = null;
  for (const e of events) {
    if (e.event === "unit") unitsSoFar++;
    if (e.event !== "progress") continue;
    const p = e.data as { done: number; failed: number; status: string };
    expect(p.done + p.failed).toBeLessThanOrEqual(unitsSoFar);
    if (previous) {
      expect(p.done + p.failed).toBeGreaterThanOrEqual(previous.done + previous.failed);
      expect(p).not.toEqual(previous);
    }
    previous = p;
  }
  expect(previous).toEqual({ ...run.progress, status: run.status });
  expect(events.filter((e) => e.event === "final")).toHaveLength(1);
  expect(events.at(-1)).toMatchObject({ event: "final", data: { id: runId, status: run.status } });
}

/** The events of one SSE body (comments and `reconnect` included), in order. */
export function parseSse(text: string): { event?: string; id?: string; data?: string; retry?: number }[] {
  return text
    .split("\n\n")
    .filter((chunk) => chunk.trim() !== "")
    .map((chunk) => {
      const e: { event?: string; id?: string; data?: string; retry?: number } = {};
      for (const line of chunk.split("\n")) {
        const at = line.indexOf(":");
        const field = line.slice(0, at);
        const value = line.slice(at + 1).replace(/^ /, "");
        if (field === "event") e.event = value;
        else if (field === "data") e.data = value;
        else if (field === "id") e.id = value;
        else if (field === "retry") e.retry = Number(value);
      }
      return e;
    });
}
