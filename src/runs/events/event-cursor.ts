/**
 * Where a client is in a run's event stream, carried as the SSE `id` of every event and handed back
 * as `Last-Event-ID` on a reconnect. It holds everything the stream needs to go on exactly where it
 * stopped: the last unit sent (`seq`), the last progress sent (so an unchanged progress is not sent
 * twice), and whether the final event was sent (then there is nothing more to send).
 *
 * Text form: `<seq>` (units only, as before progress had ids: still accepted), then
 * `<seq>_<done>_<failed>_<total>_<status>` once a progress was sent, and `…_final` after the final event.
 */
import type { RunStatus } from "../../db/schema.ts";

export type Progress = { done: number; failed: number; total: number; status: RunStatus };

export type EventCursor = {
  /** The last unit event sent: its sample's sequence number (0: none yet). */
  seq: number;
  /** The last progress sent, if the stream has sent one. */
  progress: Progress | null;
  /** The final event was sent. */
  final: boolean;
};

export const START: EventCursor = { seq: 0, progress: null, final: false };

const STATUSES = ["queued", "running", "succeeded", "failed", "canceled"] as const satisfies readonly RunStatus[];
const FORM = new RegExp(`^(\\d{1,15})(?:_(\\d{1,9})_(\\d{1,9})_(\\d{1,9})_(${STATUSES.join("|")})(_final)?)?$`);

export function formatCursor(c: EventCursor): string {
  if (!c.progress) return String(c.seq);
  const p = c.progress;
  return `${c.seq}_${p.done}_${p.failed}_${p.total}_${p.status}${c.final ? "_final" : ""}`;
}

/** The cursor of a `Last-Event-ID`: START when absent or empty, undefined when it is not one this API wrote. */
export function parseCursor(text: string | undefined): EventCursor | undefined {
  if (text === undefined || text.trim() === "") return START;
  const m = FORM.exec(text.trim());
  if (!m) return undefined;
  const progress =
    m[2] === undefined
      ? null
      : { done: Number(m[2]), failed: Number(m[3]), total: Number(m[4]), status: m[5] as RunStatus };
  return { seq: Number(m[1]), progress, final: m[6] !== undefined };
}

export function sameProgress(a: Progress | null, b: Progress | null): boolean {
  return (
    a !== null &&
    b !== null &&
    a.done === b.done &&
    a.failed === b.failed &&
    a.total === b.total &&
    a.status === b.status
  );
}
