/**
 * The two secondary keys of spec chain-determinism.md §4 "Other hashes": the dataset README's
 * `tool_calls_hash` and the CLI console's `unique_sequences` display key. Neither drives metrics;
 * they exist so stored rows can be matched against the published dataset and console output.
 */
import { compareCodePoints, fromPlain, pyFloatRepr, pyTruthy, type PyValue } from "../python/index.ts";
import { sha256Hex } from "./sequence-key.ts";

const SHORT: Record<string, string> = {
  '"': '\\"',
  "\\": "\\\\",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\b": "\\b",
  "\f": "\\f",
};

/** Python `json.dumps(s)` with ensure_ascii=True: everything outside U+0020–U+007E is `\uXXXX` per UTF-16 unit. */
function asciiString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    const c = s.charCodeAt(i);
    if (SHORT[ch] !== undefined) out += SHORT[ch];
    else if (c >= 0x20 && c <= 0x7e) out += ch;
    else out += "\\u" + c.toString(16).padStart(4, "0");
  }
  return out + '"';
}

/**
 * Python `json.dumps(value, sort_keys=True)` with default separators `", "`/`": "`, ensure_ascii
 * on, floats as `float.__repr__`, and `NaN`/`Infinity`/`-Infinity` for non-finite floats.
 */
export function pyJsonDumpsSorted(value: PyValue): string {
  switch (value.t) {
    case "null":
      return "null";
    case "bool":
      return value.v ? "true" : "false";
    case "int":
      return value.v.toString();
    case "float": {
      const x = value.v;
      if (Number.isNaN(x)) return "NaN";
      if (!Number.isFinite(x)) return x > 0 ? "Infinity" : "-Infinity";
      return pyFloatRepr(x);
    }
    case "str":
      return asciiString(value.v);
    case "list":
      return `[${value.items.map(pyJsonDumpsSorted).join(", ")}]`;
    case "dict": {
      const sorted = [...value.entries].sort((a, b) => compareCodePoints(a[0], b[0]));
      return `{${sorted.map(([k, v]) => `${asciiString(k)}: ${pyJsonDumpsSorted(v)}`).join(", ")}}`;
    }
  }
}

function entries(sequence: unknown): Record<string, unknown>[] {
  if (sequence === null || sequence === undefined) return [];
  if (!Array.isArray(sequence)) throw new TypeError("tool_call_sequence must be an array");
  return sequence.map((e, i) => {
    if (typeof e !== "object" || e === null || Array.isArray(e))
      throw new TypeError(`tool_call_sequence[${i}] must be an object`);
    return e as Record<string, unknown>;
  });
}

/**
 * Dataset `tool_calls_hash` (§4): `"sha256:" + sha256(join("||", name + ":" + json.dumps(args or {},
 * sort_keys=True)))`. Falsy args (null, absent, `{}`, `0`, `""`, `[]`, `false`) all collapse to `{}`.
 * @throws TypeError when an entry has no name or a non-string name (the reference raises KeyError /
 * TypeError there; the error's message says which).
 */
export async function toolCallsHash(sequence: unknown): Promise<string> {
  const parts = entries(sequence).map((e, i) => {
    if (!Object.hasOwn(e, "name"))
      throw new TypeError(`toolCallsHash: tool_call_sequence[${i}] has no name (reference: KeyError)`);
    if (typeof e.name !== "string")
      throw new TypeError(`toolCallsHash: tool_call_sequence[${i}].name is not a string (reference: TypeError)`);
    const args = e.args === undefined ? null : fromPlain(e.args);
    return `${e.name}:${pyJsonDumpsSorted(args && pyTruthy(args) ? args : { t: "dict", entries: [] })}`;
  });
  return "sha256:" + (await sha256Hex(parts.join("||")));
}

/**
 * The CLI's console `unique_sequences` key (§4): `[(name or null, json.dumps(args default {},
 * sort_keys=True)), ...]`. Absent args read as `{}` but an explicit null stays `null`. Display only.
 */
export function cliDisplayKey(sequence: unknown): Array<[unknown, string]> {
  return entries(sequence).map((e) => [
    Object.hasOwn(e, "name") ? e.name : null,
    Object.hasOwn(e, "args") ? pyJsonDumpsSorted(fromPlain(e.args)) : "{}",
  ]);
}
