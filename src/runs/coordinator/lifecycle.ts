// The run's life at its coordinator, as one stored value: what every RPC checks before it acts and
// what the alarm dispatches on. The moves between phases are listed once (MOVES); any other move is
// a bug and throws. Only types are imported, so the rules can be tested in plain Node.
import type { Store, StoredMeta } from "./store.ts";

export type FinalStatus = "succeeded" | "failed" | "canceled";

export type Phase =
  /** No run here yet: a start is welcome. */
  | { kind: "new" }
  /** Given up before any start reached this object (a cancel, or a start settled as lost): a late start does nothing. */
  | { kind: "abandoned"; as: "failed" | "canceled" }
  /** Units are being scheduled. */
  | { kind: "running" }
  /** Every unit has ended: the finish is due, and runs again after a crash until it is done. */
  | { kind: "finishing" }
  /** Canceled: no unit runs again, and the finish (due, as in `finishing`) ends the run canceled. */
  | { kind: "canceled" }
  /** D1 and this object hold the run's end; nothing is due. */
  | { kind: "finished"; status: FinalStatus };

export type PhaseKind = Phase["kind"];

/** Every move a run makes. A cancel may come while a finish runs, and it decides the finish's status. */
export const MOVES: Readonly<Record<PhaseKind, readonly PhaseKind[]>> = {
  new: ["running", "abandoned"],
  abandoned: [],
  running: ["finishing", "canceled"],
  finishing: ["canceled", "finished"],
  canceled: ["finished"],
  finished: [],
};

export function canMove(from: PhaseKind, to: PhaseKind): boolean {
  return MOVES[from].includes(to);
}

/** A finish is due (the alarm runs it, and a crash does not lose it). */
export function finishDue(phase: Phase): boolean {
  return phase.kind === "finishing" || phase.kind === "canceled";
}

/** The run's status as the coordinator reports it (`state().meta.status`); none before a start. */
export function statusOf(phase: Phase): "running" | FinalStatus | undefined {
  switch (phase.kind) {
    case "new":
    case "abandoned":
      return undefined;
    case "running":
    case "finishing":
      return "running";
    case "canceled":
      return "canceled";
    case "finished":
      return phase.status;
  }
}

/**
 * The phase of an object stored before the lifecycle had a key of its own, from what it spread over:
 * the meta record's `status`, a `finished` flag and an `abandoned` mark. A running run whose units
 * have all ended reads as running: its alarm finds them ended and moves it on, as it always did.
 */
export function fromLegacy(
  meta: Pick<StoredMeta, "status"> | undefined,
  finished: boolean | undefined,
  abandoned: "failed" | "canceled" | undefined,
): Phase {
  if (!meta) return abandoned ? { kind: "abandoned", as: abandoned } : { kind: "new" };
  const status = meta.status ?? "running";
  if (finished)
    return { kind: "finished", status: status === "succeeded" || status === "failed" ? status : "canceled" };
  return status === "canceled" ? { kind: "canceled" } : { kind: "running" };
}

/** The stored phase ("lifecycle" in the key-value table), kept in memory: every RPC reads it. */
export class Lifecycle {
  private current: Phase | undefined;

  private readonly store: Store;

  constructor(store: Store) {
    this.store = store;
  }

  get phase(): Phase {
    return (this.current ??= this.load());
  }

  /** Stores the move; written with whatever else the caller writes in the same turn (one commit). */
  move(next: Phase): void {
    const from = this.phase.kind;
    if (!canMove(from, next.kind)) throw new Error(`run lifecycle: no move from ${from} to ${next.kind}`);
    this.store.put("lifecycle", next);
    this.current = next;
  }

  private load(): Phase {
    const stored = this.store.get<Phase>("lifecycle");
    if (stored) return stored;
    const meta = this.store.meta();
    const abandoned = this.store.get<"failed" | "canceled">("abandoned");
    // A fresh object has nothing to migrate, and writes nothing until its first move.
    if (!meta && !abandoned) return { kind: "new" };
    const phase = fromLegacy(meta, this.store.get<boolean>("finished"), abandoned);
    this.store.put("lifecycle", phase);
    return phase;
  }
}
