// A run's live state from its event stream (GET /v1/runs/{id}/events through the SDK): progress as it
// moves, and the whole run once it is final. The stream closes when the run ends or the page leaves.
import { useEffect, useState } from "preact/hooks";
import { getRun, streamRunEvents, type Run } from "@assay/sdk";
import { call, client } from "./api.ts";

export const FINAL = new Set(["succeeded", "failed", "canceled"]);

type Progress = { done: number; failed: number; total: number; status: Run["status"] };

/** Follows `run` until it is final; returns the latest view of it (progress merged in, then the final run). */
export function useLiveRun(run: Run | null): Run | null {
  const [live, setLive] = useState<Run | null>(run);
  useEffect(() => setLive(run), [run]);
  useEffect(() => {
    if (!run || FINAL.has(run.status)) return;
    const controller = new AbortController();
    (async () => {
      // The server closes a stream after a while; reconnect until the run is final.
      while (!controller.signal.aborted) {
        let final = false;
        const { stream } = await streamRunEvents({
          client,
          path: { run_id: run.id },
          signal: controller.signal,
          sseMaxRetryAttempts: 3,
          onSseEvent: (event) => {
            const data = event.data as unknown as Record<string, unknown>;
            if (event.event === "progress") {
              const p = data as unknown as Progress;
              setLive((cur) => (cur ? ({ ...cur, status: p.status, progress: { done: p.done, failed: p.failed, total: p.total } } as Run) : cur));
            } else if (event.event === "final") {
              final = true;
              setLive(data as unknown as Run);
            }
          },
        });
        try {
          for await (const _ of stream) {
            // handled in onSseEvent, in order
          }
        } catch {
          // aborted, or the connection dropped: the loop decides
        }
        if (final || controller.signal.aborted) return;
        const now = await call(getRun({ client, path: { run_id: run.id } })).catch(() => null);
        if (now && FINAL.has(now.status)) return setLive(now);
      }
    })();
    return () => controller.abort();
  }, [run?.id, run?.status]);
  return live;
}

export function age(iso: string, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86400)}d ago`;
}
