/**
 * Secret redaction: removes a run's keys from any text or JSON value that may be stored or shown, in
 * every form an endpoint (or our own error messages) may echo them.
 *
 * What is found, in the decoded view of the text (decode.ts: URL encoding, HTML references and
 * backslash escapes of any depth undone, so JSON-escaped, doubly escaped, Python-repr'd and
 * URL-encoded copies read as the key):
 * - a key of 8 or more characters, anywhere;
 * - a key of 16 or more characters also in parts: any run of at least `fragmentLength(n)`
 *   consecutive characters of it (12 for keys of 24 or more, else half the key), so a key echoed in
 *   halves, broken by a line, or cut short by a truncated message is still caught;
 * - a key shorter than 8 characters only where it stands alone, not touching a letter or digit: such
 *   a key cannot be told apart from ordinary text, and removing every `abc` from an answer would
 *   destroy it.
 * Each match is replaced, with the whole escape sequences it was read from, by `[REDACTED]`.
 *
 * Not searched: base64 (the key is sent only as `Authorization: Bearer <key>`, never encoded, so an
 * echo of what we sent is the key as is); fewer characters of a key than above (a run of 11 characters
 * of a 40-character key is not the key); numbers (a value is redacted only in strings and object keys).
 */
import { isRawJson, pyStrRepr } from "../python/index.ts";
import { decode, originAt, type Decoded } from "./decode.ts";

/** What a redacted match becomes. */
export const REDACTED = "[REDACTED]";

/** Keys shorter than this are redacted only where they stand alone (see the module comment). */
export const MIN_SECRET_LENGTH = 8;

/** Keys at least this long are also found in parts. */
const MIN_FRAGMENT_KEY_LENGTH = 16;

/**
 * The shortest part of an `n`-character key that counts as the key: 12 characters for keys of 24 or
 * more (so each half of a key of 24 or more is found), half the key (rounded down) for keys of 16–23,
 * and the whole key below 16 characters.
 */
export function fragmentLength(n: number): number {
  if (n >= 24) return 12;
  if (n >= MIN_FRAGMENT_KEY_LENGTH) return Math.floor(n / 2);
  return n;
}

/** Redacts a run's secrets from texts and JSON values; see {@link createRedactor}. */
export interface Redactor {
  /** False when there is nothing to redact (no secrets): `text` and `value` return their input. */
  readonly active: boolean;
  /** The text with every match replaced by `[REDACTED]`. */
  text(text: string): string;
  /**
   * A copy of a JSON-like value with every string and every object key redacted. `JSON.rawJSON`
   * values (exact number lexemes), numbers, booleans, null and undefined are kept as they are. The walk
   * is iterative, so no nesting depth can overflow the stack; a value reached twice is copied once.
   */
  value<T>(value: T): T;
}

/**
 * A key as searched: its decoded `view` (matched in a text's decoded view), the `forms` it is written
 * in by the encoders we know (matched in the text as is: they decide where the decoded view cannot,
 * e.g. a key ending in a backslash, JSON-escaped before a closing quote).
 */
type Key = { view: string; forms: string[]; length: number; fragment: number; alone: boolean };

/** The key as JSON, a JSON string inside a JSON string, a URL query and Python's repr write it. */
function formsOf(secret: string): string[] {
  const json = (s: string) => JSON.stringify(s).slice(1, -1);
  return [
    ...new Set([
      secret,
      json(secret),
      json(json(secret)),
      encodeURIComponent(secret),
      pyStrRepr(secret).slice(1, -1),
      pyStrRepr(`'${secret}"`).slice(3, -2),
    ]),
  ];
}

const isWordUnit = (c: string | undefined) => c !== undefined && /[A-Za-z0-9]/.test(c);

/**
 * Compiles a redactor for `secrets` (empty, null and undefined entries are ignored; duplicates count
 * once). Compile once per set of secrets and reuse it: compiling indexes every part of every key.
 */
export function createRedactor(secrets: Iterable<string | null | undefined>): Redactor {
  const keys: Key[] = [];
  const seen = new Set<string>();
  for (const secret of secrets) {
    if (typeof secret !== "string" || secret === "" || seen.has(secret)) continue;
    seen.add(secret);
    const view = decode(secret).text;
    keys.push({
      view,
      forms: formsOf(secret),
      length: view.length,
      fragment: fragmentLength(view.length),
      alone: view.length < MIN_SECRET_LENGTH,
    });
  }
  // Parts of keys found in parts, grouped by part length: part → [key index, offset in the key].
  const groups = new Map<number, Map<string, [number, number][]>>();
  const charset = new Set<string>();
  keys.forEach((key, index) => {
    if (key.fragment >= key.length) return;
    let grams = groups.get(key.fragment);
    if (!grams) groups.set(key.fragment, (grams = new Map()));
    for (let o = 0; o + key.fragment <= key.length; o++) {
      const gram = key.view.slice(o, o + key.fragment);
      const list = grams.get(gram);
      if (list) list.push([index, o]);
      else grams.set(gram, [[index, o]]);
    }
    for (const c of key.view) charset.add(c);
  });

  /** Matches as [start, end) in the original text: known forms in the text itself, everything else in its decoded view. */
  function spans(input: string, view: Decoded): [number, number][] {
    const t = view.text;
    const inView: [number, number][] = [];
    const found: [number, number][] = [];
    for (const key of keys) {
      for (const form of key.forms) exact(input, form, key.alone, found);
      if (key.fragment >= key.length) exact(t, key.view, key.alone, inView);
    }
    for (const [size, grams] of groups) partSpans(t, size, grams, inView);
    for (const [start, end] of inView) found.push([originAt(view, start), originAt(view, end)]);
    return found;
  }

  /** Every occurrence of `needle`; a key shorter than 8 only where no letter or digit touches it. */
  function exact(t: string, needle: string, alone: boolean, found: [number, number][]) {
    for (let i = t.indexOf(needle); i !== -1; i = t.indexOf(needle, i + 1)) {
      if (alone && (isWordUnit(t[i - 1]) || isWordUnit(t[i + needle.length]))) continue;
      found.push([i, i + needle.length]);
    }
  }

  /** Longest runs of a key's characters starting where one of its `size`-character parts occurs. */
  function partSpans(t: string, size: number, grams: Map<string, [number, number][]>, found: [number, number][]) {
    const coveredUntil = new Map<number, number>();
    const nextOutside = (from: number) => {
      let j = from;
      while (j < t.length && charset.has(t[j])) j++;
      return j;
    };
    let outside = nextOutside(0);
    for (let i = 0; i + size <= t.length; i++) {
      if (outside < i) outside = nextOutside(i);
      // A window holding a character no key has cannot be a part: skip past that character.
      if (outside < i + size) {
        i = outside;
        continue;
      }
      const hits = grams.get(t.slice(i, i + size));
      if (!hits) continue;
      const byKey = new Map<number, number[]>();
      for (const [k, o] of hits) if ((coveredUntil.get(k) ?? -1) <= i) byKey.set(k, [...(byKey.get(k) ?? []), o]);
      for (const [k, offsets] of byKey) {
        const view = keys[k].view;
        let candidates = offsets;
        let len = size;
        while (i + len < t.length) {
          const c = t[i + len];
          const next = candidates.filter((o) => o + len < view.length && view[o + len] === c);
          if (next.length === 0) break;
          candidates = next;
          len++;
        }
        found.push([i, i + len]);
        coveredUntil.set(k, i + len);
      }
    }
  }

  function text(input: string): string {
    if (keys.length === 0 || input === "") return input;
    const found = spans(input, decode(input));
    if (found.length === 0) return input;
    found.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
    let out = "";
    let last = 0;
    let k = 0;
    while (k < found.length) {
      let [start, end] = found[k++];
      // Overlapping or touching matches are one redaction.
      while (k < found.length && found[k][0] <= end) end = Math.max(end, found[k++][1]);
      out += input.slice(last, start) + REDACTED;
      last = end;
    }
    return out + input.slice(last);
  }

  function value<T>(root: T): T {
    if (keys.length === 0) return root;
    if (typeof root === "string") return text(root) as T;
    if (!isContainer(root)) return root;
    const copies = new Map<object, unknown>();
    const copyOf = (v: unknown): unknown => {
      if (typeof v === "string") return text(v);
      if (!isContainer(v)) return v;
      let copy = copies.get(v);
      if (copy === undefined) {
        copy = Array.isArray(v) ? new Array(v.length) : {};
        copies.set(v, copy);
        pending.push([v, copy as Record<string, unknown>]);
      }
      return copy;
    };
    const pending: [object, Record<string, unknown>][] = [];
    const result = copyOf(root);
    while (pending.length > 0) {
      const [source, copy] = pending.pop()!;
      if (Array.isArray(source)) {
        source.forEach((item, i) => (copy[i] = copyOf(item)));
        continue;
      }
      for (const name of Object.keys(source)) {
        // Defined, not assigned, so a key named `__proto__` stays a key (as lossless-json.ts does).
        // Two keys that differ only inside a secret become one: the later value wins.
        Object.defineProperty(copy, text(name), {
          value: copyOf((source as Record<string, unknown>)[name]),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
    }
    return result as T;
  }

  return { active: keys.length > 0, text, value };
}

/** Arrays and plain-data objects; `JSON.rawJSON` values are kept whole (their lexeme is a number). */
function isContainer(v: unknown): v is object {
  return typeof v === "object" && v !== null && !isRawJson(v);
}

/** `createRedactor(secrets).text(text)`, for one text. */
export function redactText(text: string, secrets: Iterable<string | null | undefined>): string {
  return createRedactor(secrets).text(text);
}

/** `createRedactor(secrets).value(value)`, for one value. */
export function redactValue<T>(value: T, secrets: Iterable<string | null | undefined>): T {
  return createRedactor(secrets).value(value);
}
