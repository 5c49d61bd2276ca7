// A run's live state from its event stream (GET /v1/runs/{id}/events through the SDK's followRunEvents):
// progress as it moves, and the whole run once it is final. The server closes a stream now and then
// (before its query budget); followRunEvents reconnects with the last event's id, so no event is
// missed or seen twice. Following stops when the run ends or the page leaves.
import { useEffect, useState } from "preact/hooks";
import { getRun, type Run } from "@assay/sdk";
import { followRunEvents, RunEventsError } from "@assay/sdk/run-events";
import { call, client } from "./api.ts";

export const FINAL = new Set(["succeeded", "failed", "canceled"]);

/** Follows `run` until it is final; returns the latest view of it (progress merged in, then the final run). */
export function useLiveRun(run: Run | null): Run | null {
  const [live, setLive] = useState<Run | null>(run);
  useEffect(() => setLive(run), [run]);
  useEffect(() => {
    if (!run || FINAL.has(run.status)) return;
    const controller = new AbortController();
    (async () => {
      try {
        for await (const e of followRunEvents({ client, runId: run.id, signal: controller.signal })) {
          if (e.event === "progress") {
            const p = e.data;
            setLive((cur) =>
              cur
                ? ({ ...cur, status: p.status, progress: { done: p.done, failed: p.failed, total: p.total } } as Run)
                : cur,
            );
          } else if (e.event === "final") {
            setLive(e.data);
          }
        }
      } catch (err) {
        // The session ended (signed out elsewhere, expired, its key revoked): nothing more to show here.
        if (controller.signal.aborted || (err instanceof RunEventsError && err.status === 401)) return;
        // The server stayed out of reach: show the run as it is now, once it answers.
        const now = await call(getRun({ client, path: { run_id: run.id } })).catch(() => null);
        if (now && !controller.signal.aborted) setLive(now);
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
