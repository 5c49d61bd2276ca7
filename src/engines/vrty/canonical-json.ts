/**
 * Canonical JSON for hashing (spec vrty.md §3, `idf_sha256`): object keys sorted ascending by
 * UTF-16 code unit at every level, no whitespace, strings and numbers exactly as
 * `JSON.stringify` writes them (numbers in shortest round-trip form).
 *
 * Properties whose value is `undefined` are omitted, as `JSON.stringify` does. Values that
 * JSON cannot carry faithfully (non-finite numbers, bigint, functions, symbols, top-level
 * `undefined`) throw a TypeError instead of silently turning into `null`, because a hash over a
 * lossy rendering would not pin the data, and so does a cyclic value. Any depth is fine: the walk
 * does not recurse.
 */
export function canonicalJson(value: unknown): string {
  // Iterative, with an explicit stack: the value may be user data of any depth (a suite, a request
  // body), and a recursive walk would overflow the call stack on it (issue 14).
  const out: string[] = [];
  const stack: Frame[] = [];
  // The containers being written; meeting one again means a cycle, which JSON cannot carry.
  const open = new Set<object>();
  enter(value, out, stack, open);
  while (stack.length > 0) {
    const f = stack[stack.length - 1];
    if (f.items) {
      if (f.i === f.items.length) {
        out.push("]");
        stack.pop();
        open.delete(f.items);
        continue;
      }
      if (f.i > 0) out.push(",");
      // JSON.stringify turns holes and undefined array items into null; so do we.
      const item: unknown = f.items[f.i++];
      if (item === undefined) out.push("null");
      else enter(item, out, stack, open);
      continue;
    }
    const obj = f.obj!;
    const keys = f.keys!;
    if (f.i === keys.length) {
      out.push("}");
      stack.pop();
      open.delete(obj);
      continue;
    }
    const key = keys[f.i++];
    const item = obj[key];
    if (item === undefined) continue;
    if (f.written > 0) out.push(",");
    f.written++;
    out.push(JSON.stringify(key), ":");
    enter(item, out, stack, open);
  }
  return out.join("");
}

/** An array or object being written: its items or sorted keys, and how far the writing has got. */
type Frame = {
  items?: unknown[];
  obj?: Record<string, unknown>;
  keys?: string[];
  i: number;
  /** Properties written so far (objects), for the commas. */
  written: number;
};

/** Writes a scalar, or opens a container and pushes its frame. */
function enter(value: unknown, out: string[], stack: Frame[], open: Set<object>): void {
  if (value === null) {
    out.push("null");
    return;
  }
  switch (typeof value) {
    case "string":
    case "boolean":
      out.push(JSON.stringify(value));
      return;
    case "number":
      if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: non-finite number ${value}`);
      out.push(JSON.stringify(value));
      return;
    case "object":
      break;
    default:
      throw new TypeError(`canonicalJson: cannot encode a value of type ${typeof value}`);
  }
  if (open.has(value)) throw new TypeError("canonicalJson: cannot encode a cyclic value");
  open.add(value);
  if (Array.isArray(value)) {
    out.push("[");
    stack.push({ items: value, i: 0, written: 0 });
    return;
  }
  const obj = value as Record<string, unknown>;
  out.push("{");
  // Default sort compares UTF-16 code units, which is the order the spec requires.
  stack.push({ obj, keys: Object.keys(obj).sort(), i: 0, written: 0 });
}

export { sha256Hex } from "../sha256.ts";
