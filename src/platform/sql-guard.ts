/**
 * The checks production makes on one SQL statement, made before it runs, for D1 and a Durable
 * Object's SQLite alike: at most 100 bound parameters, at most 100,000 bytes of SQL text, and no
 * string, BLOB or row over 2 MB. Local workerd accepts all of these, so the wrappers that every
 * statement goes through (counted-d1.ts for D1, `guardedSql` for a Durable Object) call this and a
 * test fails where production would.
 *
 * A row's size is known here only from what the statement writes: each of an INSERT's rows (its
 * placeholders grouped by the VALUES tuple) and the values an UPDATE sets.
 */
import { limitOf } from "./limits.ts";
import { noteStoredValue, PlatformLimitError } from "./invocation.ts";
import { guardStoredSize, utf8Bytes } from "./storage-guard.ts";

export type RowStore = "durableObjectValueBytes" | "d1RowBytes";

/**
 * What a statement writes: `columns` names the column of each placeholder of one written row (an
 * INSERT's first VALUES tuple, an UPDATE's SET list), so `columns.length` placeholders make a row.
 */
type Shape = { verb: "insert" | "update" | "other"; table: string; columns: string[] };

const INSERT = /^\s*(?:insert|replace)\s+(?:or\s+\w+\s+)?into\s+["`]?(\w+)["`]?\s*\(([^)]*)\)\s*values\s*\(/i;
const UPDATE = /^\s*update\s+(?:or\s+\w+\s+)?["`]?(\w+)["`]?\s+set\s+/i;

/** The top-level comma-separated items of `text` up to the parenthesis that closes it (or its end). */
function items(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "(") depth++;
    else if (ch === ")" && depth-- === 0) return [...out, text.slice(from, i)];
    else if (ch === "," && depth === 0) {
      out.push(text.slice(from, i));
      from = i + 1;
    }
  }
  return [...out, text.slice(from)];
}

const placeholders = (item: string) => item.split("?").length - 1;
const unquote = (name: string) => name.trim().replace(/["`]/g, "");

// Statements are a few fixed strings (ours and drizzle's), so their shapes are kept.
const shapes = new Map<string, Shape>();
const MAX_SHAPES = 500;

function shapeOf(query: string): Shape {
  let shape = shapes.get(query);
  if (shape) return shape;
  const insert = INSERT.exec(query);
  const update = insert ? null : UPDATE.exec(query);
  if (insert) {
    // A row's values may mix placeholders and literals (drizzle writes `null` for a column a row
    // leaves out): each placeholder is the value of the column at its place in the tuple.
    const names = insert[2].split(",").map(unquote);
    const tuple = items(query.slice(insert[0].length));
    shape = {
      verb: "insert",
      table: insert[1],
      columns: tuple.flatMap((item, k) => Array<string>(placeholders(item)).fill(names[k] ?? `column ${k + 1}`)),
    };
  } else if (update) {
    // Only the SET list's placeholders are values written; the WHERE clause's come after them.
    const set = query.slice(update[0].length).split(/\swhere\s/i)[0];
    const columns = items(set).flatMap((item) => Array<string>(placeholders(item)).fill(unquote(item.split("=")[0])));
    shape = { verb: "update", table: update[1], columns };
  } else shape = { verb: "other", table: "", columns: [] };
  if (shapes.size >= MAX_SHAPES) shapes.clear();
  shapes.set(query, shape);
  return shape;
}

/**
 * The bytes a bound value takes in a row: a string's UTF-8 (`exact`) or its UTF-16 units (otherwise:
 * a lower bound, exact for ASCII, that needs no pass over the text), a BLOB's length, a number's 8.
 */
function valueBytes(v: unknown, exact: boolean): number {
  if (typeof v === "string") return exact ? utf8Bytes(v) : v.length;
  if (v instanceof ArrayBuffer || ArrayBuffer.isView(v)) return v.byteLength;
  if (typeof v === "number" || typeof v === "bigint") return 8;
  return 0;
}

/** The sizes of the values a statement binds, and of each row it writes (none for a statement that writes none). */
function sizes(shape: Shape, params: readonly unknown[], exact: boolean): { values: number[]; rows: number[] } {
  const width = shape.columns.length;
  const values: number[] = [];
  const rows: number[] = [];
  params.forEach((p, i) => {
    const bytes = valueBytes(p, exact);
    values[i] = bytes;
    // An UPDATE's WHERE parameters come after its SET list: not part of the row.
    if (shape.verb === "other" || width === 0 || (shape.verb === "update" && i >= width)) return;
    const row = shape.verb === "insert" && width > 0 ? Math.floor(i / width) : 0;
    rows[row] = (rows[row] ?? 0) + bytes;
  });
  return { values, rows };
}

/**
 * Throws a PlatformLimitError when `query` with `params` is over what production accepts in `store`:
 * the statement's length, its bound parameters, a value's or a written row's size. `owner` names the
 * database in the message ("D1", "the run's coordinator").
 */
export function checkStatement(store: RowStore, owner: string, query: string, params: readonly unknown[]): void {
  // SQL text is mostly ASCII; its bytes are counted only when its characters could be over the limit.
  const maxSql = limitOf("sqlStatementBytes");
  if (query.length * 3 > maxSql) {
    const bytes = utf8Bytes(query);
    if (bytes > maxSql) {
      throw new PlatformLimitError(
        "sqlStatementBytes",
        `a SQL statement of ${owner} is ${bytes.toLocaleString("en-US")} bytes long ("${query.slice(0, 60)}…")`,
      );
    }
  }
  const shape = shapeOf(query);
  const where = shape.verb === "other" ? `"${query.trim().slice(0, 40)}…"` : `${shape.verb} ${shape.table}`;
  if (params.length > limitOf("sqlBoundParameters")) {
    throw new PlatformLimitError(
      "sqlBoundParameters",
      `a SQL statement of ${owner} (${where}) binds ${params.length} parameters`,
    );
  }
  // Bounds first (a UTF-16 unit is 1 to 3 UTF-8 bytes): nearly every statement is far under the
  // limit, and then no text is scanned.
  const limit = limitOf(store);
  let { values, rows } = sizes(shape, params, false);
  const near = values.some((b) => b * 3 > limit) || rows.some((b) => b * 3 > limit);
  if (near) ({ values, rows } = sizes(shape, params, true));
  const width = shape.columns.length;
  const column = (i: number) =>
    shape.verb === "other" || width === 0 || (shape.verb === "update" && i >= width)
      ? `parameter ${i + 1} of ${where}`
      : `${shape.table}.${shape.columns[i % width]}`;
  values.forEach((bytes, i) => {
    if (near) guardStoredSize(store, `${column(i)} (${owner})`, bytes);
  });
  rows.forEach((bytes, r) => {
    const which = rows.length > 1 ? ` (row ${r + 1} of the statement)` : "";
    if (near) guardStoredSize(store, `a row of ${shape.table}${which} (${owner})`, bytes);
    // For the high-water mark: the lower bound, exact for ASCII text (JSON, mostly).
    else noteStoredValue(`a row of ${shape.table} (${owner})`, bytes);
  });
}

/**
 * A Durable Object's SQL storage whose every `exec` is checked first (checkStatement), so a store
 * built on it cannot write what production would refuse. `owner` names the object in messages.
 */
export function guardedSql(sql: SqlStorage, owner: string): SqlStorage {
  return new Proxy(sql, {
    get(target, prop) {
      if (prop === "exec") {
        return (query: string, ...bindings: SqlStorageValue[]) => {
          checkStatement("durableObjectValueBytes", owner, query, bindings);
          return target.exec(query, ...bindings);
        };
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
