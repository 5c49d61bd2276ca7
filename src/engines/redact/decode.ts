/**
 * The "decoded view" of a text that secret redaction searches: the encodings an endpoint (or our own
 * error messages) may wrap a key in are undone, and every decoded character remembers which run of
 * the original text it came from, so a match found in the view is cut out of the original whole.
 *
 * Undone, in this order:
 * 1. URL encoding (`%2F`, either case, repeated for a doubly encoded `%252F`) and HTML character
 *    references (`&quot;`, `&amp;`, `&lt;`, `&gt;`, `&apos;`, `&#34;`, `&#x22;`), as a proxy's error
 *    page or a query string echoes them;
 * 2. backslash escapes at any depth: a run of backslashes before `"`, `'` or `/` is that character
 *    (JSON `\"`, a JSON string inside a JSON string `\\\"`, Python repr `\'`, PHP `\/`); before
 *    `uXXXX` or `xXX` it is that code (JSON, Python repr of a control character); any other run of
 *    backslashes is one backslash (`\\` in JSON or Python, `\\\\` doubly escaped).
 *
 * The view is for matching only; nothing decoded is ever returned. Texts and keys go through the
 * same function, so whatever a key's own characters decode to, its escaped forms decode to the same.
 */

/**
 * A decoded view: `text`, and `at[k]` = where its unit k starts in the original (`at[length]` = the
 * original's length); `at` is null when the view is the original itself.
 */
export type Decoded = { text: string; at: Int32Array | null };

/** Where unit `k` of a view starts in the original text (`k` = the view's length: the original's end). */
export const originAt = (view: Decoded, k: number): number => (view.at ? view.at[k] : k);

/** `null` when nothing in `text` is encoded (the view is the text itself). */
type Pass = (text: string) => { text: string; at: Int32Array } | null;

const HEX = /^[0-9a-fA-F]+$/;
const isHex = (s: string, n: number) => s.length === n && HEX.test(s);

const PERCENT_OR_ENTITY = /%[0-9a-fA-F]{2}|&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|quot|amp|lt|gt|apos);/;
const ENTITY = /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|(quot|amp|lt|gt|apos));/y;
const NAMED: Record<string, string> = { quot: '"', amp: "&", lt: "<", gt: ">", apos: "'" };

/** A code point as one UTF-16 unit, or null (astral and surrogate codes stay as written: no key has them). */
function bmpChar(cp: number): string | null {
  return cp <= 0xffff && (cp < 0xd800 || cp > 0xdfff) ? String.fromCharCode(cp) : null;
}

/**
 * Writes a view: runs of unchanged text are copied as slices, decoded units one by one, and the
 * position of every unit is kept (a view is never longer than its text).
 */
class Builder {
  private readonly parts: string[] = [];
  private readonly source: string;
  private readonly at: Int32Array;
  private length = 0;
  private copiedUntil = 0;
  constructor(source: string) {
    this.source = source;
    this.at = new Int32Array(source.length + 1);
  }
  /** Copies the source up to `end` as is. */
  private copy(end: number) {
    if (end <= this.copiedUntil) return;
    this.parts.push(this.source.slice(this.copiedUntil, end));
    for (let i = this.copiedUntil; i < end; i++) this.at[this.length++] = i;
  }
  /** Unit `unit` is what source[start, end) decodes to. */
  decoded(unit: string, start: number, end: number) {
    this.copy(start);
    this.parts.push(unit);
    this.at[this.length++] = start;
    this.copiedUntil = end;
  }
  done() {
    this.copy(this.source.length);
    this.at[this.length] = this.source.length;
    return { text: this.parts.join(""), at: this.at.subarray(0, this.length + 1) };
  }
}

const percentAndEntities: Pass = (s) => {
  if (!PERCENT_OR_ENTITY.test(s)) return null;
  const out = new Builder(s);
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "%" && isHex(s.slice(i + 1, i + 3), 2)) {
      out.decoded(String.fromCharCode(parseInt(s.slice(i + 1, i + 3), 16)), i, i + 3);
      i += 2;
    } else if (c === "&") {
      ENTITY.lastIndex = i;
      const m = ENTITY.exec(s);
      const ch = m ? (m[3] ? NAMED[m[3]] : bmpChar(m[1] ? Number(m[1]) : parseInt(m[2], 16))) : null;
      if (m && ch !== null) {
        out.decoded(ch, i, i + m[0].length);
        i += m[0].length - 1;
      }
    }
  }
  return out.done();
};

const backslashes: Pass = (s) => {
  if (!s.includes("\\")) return null;
  const out = new Builder(s);
  for (let i = s.indexOf("\\"); i !== -1; i = s.indexOf("\\", i)) {
    let j = i;
    while (s[j] === "\\") j++;
    const c = s[j];
    const code = c === "u" ? s.slice(j + 1, j + 5) : c === "x" ? s.slice(j + 1, j + 3) : "";
    const ch =
      c === '"' || c === "'" || c === "/"
        ? c
        : code && isHex(code, c === "u" ? 4 : 2)
          ? bmpChar(parseInt(code, 16))
          : null;
    if (ch !== null) {
      out.decoded(ch, i, j + 1 + code.length);
      i = j + 1 + code.length;
    } else {
      // Any other run is one backslash; the character after it is read on its own.
      out.decoded("\\", i, j);
      i = j;
    }
  }
  return out.done();
};

/** Runs `pass` over a view, composing its positions with the view's. */
function then(view: Decoded, pass: Pass): Decoded {
  const next = pass(view.text);
  if (!next) return view;
  const prior = view.at;
  if (prior) for (let k = 0; k < next.at.length; k++) next.at[k] = prior[next.at[k]];
  return next;
}

/** Doubly URL-encoded keys decode in the second round; more rounds than that are not an echo. */
const PERCENT_ROUNDS = 3;

/** The decoded view of `text` (see the module comment). */
export function decode(text: string): Decoded {
  let view: Decoded = { text, at: null };
  for (let round = 0; round < PERCENT_ROUNDS; round++) {
    const next = then(view, percentAndEntities);
    if (next === view) break;
    view = next;
  }
  return then(view, backslashes);
}
