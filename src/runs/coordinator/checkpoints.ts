// The saved state of units that run in steps (a chain-determinism replay of many turns): a lane that
// must hand over to a fresh invocation mid-unit saves where the unit is, and whichever lane runs the
// unit next (itself after the hand-over, another after an eviction and a re-dispatch) continues from
// there instead of from the start. A row per unit, dropped when the unit ends.
import { guardStoredSize, utf8Bytes } from "../../platform/storage-guard.ts";

export class Checkpoints {
  private readonly sql: SqlStorage;
  /** Whether the table may hold a row: most runs never save one, and every unit's end would otherwise cost a DELETE. */
  private any: boolean;

  constructor(sql: SqlStorage) {
    this.sql = sql;
    sql.exec("CREATE TABLE IF NOT EXISTS checkpoints (unit_id TEXT PRIMARY KEY, state TEXT NOT NULL)");
    this.any = sql.exec("SELECT 1 FROM checkpoints LIMIT 1").toArray().length > 0;
  }

  /** Stores `state` (the unit's own text) for `unitId`; a state over a Durable Object value's size is refused, naming the unit. */
  save(unitId: string, state: string): void {
    guardStoredSize(
      "durableObjectValueBytes",
      `the checkpoint of unit ${unitId}`,
      utf8Bytes(unitId) + utf8Bytes(state),
    );
    this.sql.exec("INSERT OR REPLACE INTO checkpoints (unit_id, state) VALUES (?, ?)", unitId, state);
    this.any = true;
  }

  of(unitId: string): string | null {
    if (!this.any) return null;
    return (
      this.sql.exec<{ state: string }>("SELECT state FROM checkpoints WHERE unit_id = ?", unitId).toArray()[0]?.state ??
      null
    );
  }

  drop(unitId: string): void {
    if (!this.any) return;
    this.sql.exec("DELETE FROM checkpoints WHERE unit_id = ?", unitId);
  }
}
