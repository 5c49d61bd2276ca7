// The saved state of units that run in steps (a chain-determinism replay of many turns): a lane that
// must hand over to a fresh invocation mid-unit saves where the unit is, and whichever lane runs the
// unit next (itself after the hand-over, another after an eviction and a re-dispatch) continues from
// there instead of from the start. A row per unit, dropped when the unit ends.
import { guardStoredSize, utf8Bytes } from "../../platform/storage-guard.ts";

export class Checkpoints {
  private readonly sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.sql = sql;
    sql.exec("CREATE TABLE IF NOT EXISTS checkpoints (unit_id TEXT PRIMARY KEY, state TEXT NOT NULL)");
  }

  /** Stores `state` (the unit's own text) for `unitId`; a state over a Durable Object value's size is refused, naming the unit. */
  save(unitId: string, state: string): void {
    guardStoredSize("durableObjectValueBytes", `the checkpoint of unit ${unitId}`, utf8Bytes(unitId) + utf8Bytes(state));
    this.sql.exec("INSERT OR REPLACE INTO checkpoints (unit_id, state) VALUES (?, ?)", unitId, state);
  }

  of(unitId: string): string | null {
    return this.sql.exec<{ state: string }>("SELECT state FROM checkpoints WHERE unit_id = ?", unitId).toArray()[0]?.state ?? null;
  }

  drop(unitId: string): void {
    this.sql.exec("DELETE FROM checkpoints WHERE unit_id = ?", unitId);
  }
}
