// What a run's endpoint saw of it, from its lanes' reports: the shared limiter's window and the
// permits held over time (a bounded series), and how many lanes the run keeps busy for that window.
import { saveEndpointReport } from "../../db/endpoint-report.ts";
import type { Db } from "../../db/client.ts";
import type { EndpointReport } from "../../db/schema.ts";
import type { EndpointObservation } from "../limiter/endpoint-gate.ts";
import type { Store } from "./store.ts";

/** The series keeps at most this many points; past it, its buckets double in width (maxima merged). */
export const MAX_SERIES_POINTS = 240;
/**
 * Lanes per permit of the window: a window can grow only while more requests wait than it allows,
 * so the run keeps twice as many lanes busy (and never fewer than MIN_LANES, never more than its
 * `concurrency`). The window climbs by doubling, which this headroom lets it do.
 */
export const LANE_HEADROOM = 2;
export const MIN_LANES = 8;
/** The report reaches D1 at most this often while the run goes on (and once more when its units end). */
export const REPORT_FLUSH_MS = 1000;

type Stored = {
  adaptive: boolean;
  /** The lanes the run keeps busy, from the last limit its lanes saw; null until one did. */
  lanes: number | null;
  /** Epoch second of the run's first observed model call. */
  originS: number | null;
  bucketS: number;
  /** [bucket start, seconds since originS; limit; permits held], each the bucket's largest. */
  points: [number, number, number][];
  maxLimit: number;
  maxInFlight: number;
  /** Epoch second of the newest observation, whose limit sets `lanes`. */
  lastS: number;
};

export class EndpointSeries {
  private readonly store: Store;
  private state: Stored | undefined;
  private changed = false;
  private reported = 0;

  constructor(store: Store) {
    this.store = store;
  }

  private get s(): Stored {
    return (this.state ??= this.store.get<Stored>("endpoint") ?? {
      adaptive: this.store.get<boolean>("adaptive") === true,
      lanes: null,
      originS: null,
      bucketS: 1,
      points: [],
      maxLimit: 0,
      maxInFlight: 0,
      lastS: 0,
    });
  }

  /** The lanes a run of `concurrency` keeps busy now: all of them until its lanes have seen a window. */
  lanes(concurrency: number): number {
    const lanes = this.s.lanes;
    return lanes === null ? concurrency : Math.min(concurrency, lanes);
  }

  /** Adds a unit's observation; returns whether the run may now keep more lanes busy than before. */
  add(obs: EndpointObservation | undefined): boolean {
    if (!obs?.points.length) return false;
    const s = this.s;
    const before = s.lanes;
    for (const [t, limit, inFlight] of obs.points) {
      s.originS ??= t;
      s.maxLimit = Math.max(s.maxLimit, limit);
      s.maxInFlight = Math.max(s.maxInFlight, inFlight);
      if (t >= s.lastS) {
        s.lastS = t;
        s.lanes = Math.max(MIN_LANES, Math.ceil(LANE_HEADROOM * limit));
      }
      const at = Math.max(0, Math.floor((t - s.originS) / s.bucketS) * s.bucketS);
      const i = s.points.findLastIndex((p) => p[0] <= at);
      if (i >= 0 && s.points[i][0] === at) {
        s.points[i][1] = Math.max(s.points[i][1], limit);
        s.points[i][2] = Math.max(s.points[i][2], inFlight);
      } else s.points.splice(i + 1, 0, [at, limit, inFlight]);
    }
    while (s.points.length > MAX_SERIES_POINTS) coarsen(s);
    this.changed = true;
    return s.lanes !== null && (before === null ? false : s.lanes > before);
  }

  report(): EndpointReport | null {
    const s = this.s;
    if (s.originS === null) return null;
    return {
      adaptive: s.adaptive,
      bucket_s: s.bucketS,
      series: s.points.map((p) => [...p]),
      max_limit: s.maxLimit,
      max_in_flight: s.maxInFlight,
    };
  }

  /**
   * Stores what changed, and copies the report to the run's D1 row when `REPORT_FLUSH_MS` has passed
   * since the last copy (or at once with `final`). A failed copy is logged: the next one carries it.
   */
  async flush(db: Db, runId: string, final = false): Promise<void> {
    if (!this.changed) return;
    this.store.put("endpoint", this.s);
    const now = Date.now();
    if (!final && now - this.reported < REPORT_FLUSH_MS) return;
    const report = this.report();
    this.changed = false;
    this.reported = now;
    if (!report) return;
    try {
      await saveEndpointReport(db, runId, report);
    } catch (err) {
      this.changed = true;
      console.error(
        JSON.stringify({
          level: "warn",
          run_id: runId,
          error: `writing the endpoint report failed, written again later: ${String(err)}`,
        }),
      );
    }
  }
}

/** Doubles the buckets' width, keeping each merged bucket's maxima. */
function coarsen(s: Stored): void {
  s.bucketS *= 2;
  const merged: [number, number, number][] = [];
  for (const [t, limit, inFlight] of s.points) {
    const at = Math.floor(t / s.bucketS) * s.bucketS;
    const last = merged[merged.length - 1];
    if (last && last[0] === at) {
      last[1] = Math.max(last[1], limit);
      last[2] = Math.max(last[2], inFlight);
    } else merged.push([at, limit, inFlight]);
  }
  s.points = merged;
}
