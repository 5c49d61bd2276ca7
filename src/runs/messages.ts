/** Queue message bodies. Small on purpose: everything else is rebuilt from the run's stored state. */
/** A unit assigned to lane `lane` of its run (see UnitRunner). */
export type UnitMessage = { kind: "unit"; runId: string; unitId: string; attempt: number; lane: number };
export type WebhookMessage = { kind: "webhook"; runId: string; messageId: string; event: RunEvent; attempt: number };
export type QueueMessage = UnitMessage | WebhookMessage;

export type RunEvent = "run.succeeded" | "run.failed" | "run.canceled";
