/**
 * Canonical JSON for hashing (spec vrty.md §3, `idf_sha256`): object keys sorted ascending by
 * UTF-16 code unit at every level, no whitespace, strings and numbers exactly as
 * `JSON.stringify` writes them (numbers in shortest round-trip form).
 *
 * Properties whose value is `undefined` are omitted, as `JSON.stringify` does. Values that
 * JSON cannot carry faithfully (non-finite numbers, bigint, functions, symbols, top-level
 * `undefined`) throw a TypeError instead of silently turning into `null`, because a hash over a
 * lossy rendering would not pin the data.
 */
export function canonicalJson(value: unknown): string {
  const parts: string[] = [];
  write(value, parts);
  return parts.join("");
}

function write(value: unknown, out: string[]): void {
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
  if (Array.isArray(value)) {
    out.push("[");
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.push(",");
      // JSON.stringify turns holes and undefined array items into null; so do we.
      const item: unknown = value[i];
      if (item === undefined) out.push("null");
      else write(item, out);
    }
    out.push("]");
    return;
  }
  const obj = value as Record<string, unknown>;
  // Default sort compares UTF-16 code units, which is the order the spec requires.
  const keys = Object.keys(obj).sort();
  out.push("{");
  let first = true;
  for (const key of keys) {
    const item = obj[key];
    if (item === undefined) continue;
    if (!first) out.push(",");
    first = false;
    out.push(JSON.stringify(key), ":");
    write(item, out);
  }
  out.push("}");
}

export { sha256Hex } from "../sha256.ts";
