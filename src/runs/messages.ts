/** Queue message bodies. Small on purpose: everything else is rebuilt from the run's stored state. */
export type UnitMessage = { kind: "unit"; runId: string; unitId: string; attempt: number };
export type WebhookMessage = { kind: "webhook"; runId: string; messageId: string; event: RunEvent; attempt: number };
export type QueueMessage = UnitMessage | WebhookMessage;

export type RunEvent = "run.succeeded" | "run.failed" | "run.canceled";
