/**
 * The divergence identity (spec chain-determinism.md §4): the reference's `seq_full` tuple,
 * mirrored to JSON, and our compact string form `seq_key` whose equality is tuple equality.
 */
import { sha256Hex } from "../sha256.ts";
import { compareCodePoints, fromPlain, pyFloatRepr, type PyValue } from "../python/index.ts";

/** JSON mirror of one canonical value: `["int","1"]`, `["float","1.0"]`, `["dict",[[k, K], ...]]`, … */
export type KeyMirror =
  | ["absent"]
  | ["null"]
  | ["bool", boolean]
  | ["int", string]
  | ["float", string]
  | ["str", string]
  | ["list", KeyMirror[]]
  | ["dict", Array<[string, KeyMirror]>];

/** One `(name, argsKey)` pair per call, in call order. */
export type SeqMirror = Array<[unknown, KeyMirror]>;

/** K(value) of §4 over the lossless tree. */
export function keyOf(value: PyValue): KeyMirror {
  switch (value.t) {
    case "null":
      return ["null"];
    case "bool":
      return ["bool", value.v];
    case "int":
      return ["int", value.v.toString()];
    case "float":
      return ["float", pyFloatRepr(value.v)];
    case "str":
      return ["str", value.v];
    case "list":
      return ["list", value.items.map(keyOf)];
    case "dict": {
      const sorted = [...value.entries].sort((x, y) => compareCodePoints(x[0], y[0]));
      return ["dict", sorted.map(([k, v]) => [k, keyOf(v)])];
    }
  }
}

function isEntry(e: unknown): e is Record<string, unknown> {
  return typeof e === "object" && e !== null && !Array.isArray(e);
}

/**
 * The reference `seq_full` (§4), mirrored: each entry contributes `[name ?? null, argsKey]` where
 * argsKey is `["absent"]` when the entry has no `args` key, else K(args). Only `name` and `args`
 * count (`tool_call_id`, `args_malformed`, `bound_to`, `error` are ignored). Entries are the stored
 * form (`PyPlain`, see lossless-json.ts) or any JSON.parse output; numbers there are ints when
 * integral. A `null`/absent sequence is `[]`.
 * @throws TypeError when the sequence is not an array or an entry is not an object (as the reference).
 */
export function seqFull(sequence: unknown): SeqMirror {
  if (sequence === null || sequence === undefined) return [];
  if (!Array.isArray(sequence)) throw new TypeError("seqFull: tool_call_sequence must be an array");
  return sequence.map((e, i): [unknown, KeyMirror] => {
    if (!isEntry(e)) throw new TypeError(`seqFull: tool_call_sequence[${i}] must be an object`);
    const name = Object.hasOwn(e, "name") && e.name !== undefined ? e.name : null;
    return [name, Object.hasOwn(e, "args") ? keyOf(fromPlain(e.args)) : ["absent"]];
  });
}

/**
 * Our canonical string (§4 "Port encoding"): `json.dumps(seq_full mirror, ensure_ascii=False,
 * separators=(",", ":"))`. JSON.stringify writes strings exactly as that Python call does (only
 * `"`, `\` and U+0000–U+001F escaped, with the same short forms and lower-case hex), so two
 * replays are identical iff their keys are equal strings.
 */
export function seqKey(sequence: unknown): string {
  return JSON.stringify(seqFull(sequence));
}

export { sha256Hex };

/** `seq_key_sha256` (§4): hex SHA-256 of {@link seqKey}; a handy stored id for a sequence. */
export function seqKeySha256(sequence: unknown): Promise<string> {
  return sha256Hex(seqKey(sequence));
}
