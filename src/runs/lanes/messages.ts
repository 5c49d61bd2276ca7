/** Queue message bodies. Small on purpose: everything else is rebuilt from the run's stored state. */
/** A unit assigned to lane `lane` of its run (see UnitRunner). */
export type UnitMessage = { kind: "unit"; runId: string; unitId: string; attempt: number; lane: number };

/** The name of a run's lane object; the lane reads its run and number back from it (`ctx.id.name`). */
export function laneName(runId: string, lane: number): string {
  return `${runId}:${lane}`;
}

export function parseLaneName(name: string): { runId: string; lane: number } | null {
  const i = name.lastIndexOf(":");
  const lane = Number(name.slice(i + 1));
  return i > 0 && Number.isInteger(lane) ? { runId: name.slice(0, i), lane } : null;
}

export type WebhookMessage = { kind: "webhook"; runId: string; messageId: string; event: RunEvent; attempt: number };
export type QueueMessage = UnitMessage | WebhookMessage;

export type RunEvent = "run.succeeded" | "run.failed" | "run.canceled";
