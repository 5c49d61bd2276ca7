/**
 * A single, non-recursive pass over a JSON text that checks what `JSON.parse` lets through but a
 * strict API must not (issue 14: "no input can overflow a stack anywhere", "duplicate JSON keys
 * silently take the last value"):
 *
 * - nesting: every object or array counts one level, the body itself being level 1; a text nesting
 *   deeper than `maxDepth` is refused before anything recursive (zod, `JSON.stringify`,
 *   `structuredClone`, our own walkers) ever sees it;
 * - duplicate keys, at any depth, compared after unescaping (`"a"` and `"\u0061"` are the same key);
 * - the JSON grammar itself (RFC 8259, exactly what `JSON.parse` accepts), so that a syntax error is
 *   reported with its position rather than as a bare "not JSON".
 *
 * The scan keeps one frame per open container (at most `maxDepth`), so its memory is bounded by the
 * limit, and it stops at the first syntax or depth problem.
 */

/** A field-level problem: its dotted path (`pairs.0.prompt`; `body` for the top level) and what is wrong. */
export type JsonFieldProblem = { path: string; message: string };

export type JsonCheck =
  | { ok: true }
  /** Not JSON: `offset` is the UTF-16 index of the offending character (the text's length at its end). */
  | { ok: false; syntax: { message: string; offset: number; line: number; column: number } }
  /** JSON, but too deep or with repeated keys. */
  | { ok: false; fields: JsonFieldProblem[] };

export type CheckJsonOptions = {
  /** Most levels of objects and arrays, the top-level value being level 1. */
  maxDepth: number;
  /** Field problems reported at most (a body with a million repeated keys gets a short answer). */
  maxProblems?: number;
};

type Frame = {
  /** `true` for an object, `false` for an array. */
  object: boolean;
  /** The keys seen so far (objects only). */
  keys: Set<string> | null;
  /** The current key (objects) or index (arrays): the last path segment of the value being read. */
  at: string | number;
};

// What the scan expects next: a value, a property name, or what follows a value (`,`, a closing bracket, the end).
const VALUE = 0,
  KEY = 1,
  AFTER = 2;

// Character codes used below.
const SPACE = 0x20,
  TAB = 0x09,
  LF = 0x0a,
  CR = 0x0d;
const QUOTE = 0x22,
  BACKSLASH = 0x5c,
  COMMA = 0x2c,
  COLON = 0x3a;
const LBRACE = 0x7b,
  RBRACE = 0x7d,
  LBRACKET = 0x5b,
  RBRACKET = 0x5d;
const MINUS = 0x2d,
  PLUS = 0x2b,
  DOT = 0x2e,
  ZERO = 0x30,
  NINE = 0x39;

/** Thrown inside the scan only; {@link checkJson} turns it into its result. */
class Syntax {
  readonly message: string;
  readonly offset: number;
  constructor(message: string, offset: number) {
    this.message = message;
    this.offset = offset;
  }
}

function isDigit(c: number): boolean {
  return c >= ZERO && c <= NINE;
}

function isHex(c: number): boolean {
  return (c >= ZERO && c <= NINE) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

function unexpected(s: string, i: number): string {
  if (i >= s.length) return "unexpected end of input";
  const c = s.codePointAt(i)!;
  return c < 0x20 || c === 0x7f
    ? `unexpected character U+${c.toString(16).toUpperCase().padStart(4, "0")}`
    : `unexpected '${String.fromCodePoint(c)}'`;
}

/** Index just past the string token opening at `i` (a `"`), validating escapes and control characters. */
function scanString(s: string, i: number): number {
  let j = i + 1;
  for (;;) {
    if (j >= s.length) throw new Syntax("unterminated string", i);
    const c = s.charCodeAt(j);
    if (c === QUOTE) return j + 1;
    if (c < 0x20)
      throw new Syntax(`unescaped control character U+${c.toString(16).toUpperCase().padStart(4, "0")} in a string`, j);
    if (c !== BACKSLASH) {
      j++;
      continue;
    }
    const e = s.charCodeAt(j + 1);
    if (e === 0x75 /* u */) {
      for (let k = 2; k < 6; k++)
        if (!isHex(s.charCodeAt(j + k))) throw new Syntax("invalid \\u escape in a string", j);
      j += 6;
    } else if (
      e === QUOTE ||
      e === BACKSLASH ||
      e === 0x2f ||
      e === 0x62 ||
      e === 0x66 ||
      e === 0x6e ||
      e === 0x72 ||
      e === 0x74
    ) {
      j += 2;
    } else {
      throw new Syntax("invalid escape in a string", j);
    }
  }
}

/** Index just past the number token starting at `i` (RFC 8259 grammar: no `+`, no leading zeros, no bare `.`). */
function scanNumber(s: string, i: number): number {
  let j = i;
  if (s.charCodeAt(j) === MINUS) j++;
  const first = s.charCodeAt(j);
  if (first === ZERO) j++;
  else if (isDigit(first)) while (isDigit(s.charCodeAt(j))) j++;
  else throw new Syntax(`${unexpected(s, j)} in a number`, j);
  if (s.charCodeAt(j) === DOT) {
    j++;
    if (!isDigit(s.charCodeAt(j))) throw new Syntax(`${unexpected(s, j)} in a number`, j);
    while (isDigit(s.charCodeAt(j))) j++;
  }
  const e = s.charCodeAt(j);
  if (e === 0x65 || e === 0x45) {
    j++;
    const sign = s.charCodeAt(j);
    if (sign === PLUS || sign === MINUS) j++;
    if (!isDigit(s.charCodeAt(j))) throw new Syntax(`${unexpected(s, j)} in a number`, j);
    while (isDigit(s.charCodeAt(j))) j++;
  }
  return j;
}

function skipWs(s: string, i: number): number {
  for (;;) {
    const c = s.charCodeAt(i);
    if (c === SPACE || c === LF || c === CR || c === TAB) i++;
    else return i;
  }
}

function pathOf(stack: Frame[]): string {
  return stack.length === 0 ? "body" : stack.map((f) => String(f.at)).join(".");
}

function lineAndColumn(s: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < s.length; i++) {
    if (s.charCodeAt(i) === LF) {
      line++;
      start = i + 1;
    }
  }
  return { line, column: offset - start + 1 };
}

/**
 * Checks `text` in one iterative pass (see the module comment). Paths are dotted like the
 * validation hook's (`items.0.context`), `body` for the top-level value. A depth problem names the
 * first container past the limit; a duplicate key names the repeated key itself.
 * @throws RangeError for a `maxDepth` below 1.
 */
export function checkJson(text: string, options: CheckJsonOptions): JsonCheck {
  const { maxDepth, maxProblems = 10 } = options;
  if (!Number.isInteger(maxDepth) || maxDepth < 1)
    throw new RangeError(`checkJson: maxDepth must be a positive integer, got ${maxDepth}`);
  const s = text;
  const stack: Frame[] = [];
  const fields: JsonFieldProblem[] = [];
  let i = 0;
  let state: number = VALUE;
  try {
    for (;;) {
      i = skipWs(s, i);
      if (state === VALUE) {
        const c = s.charCodeAt(i);
        if (c === LBRACE || c === LBRACKET) {
          if (stack.length >= maxDepth) {
            // Name the container that goes one level too far: its path is the deepest prefix allowed.
            fields.push({ path: pathOf(stack), message: `nests deeper than ${maxDepth} levels of objects and arrays` });
            return { ok: false, fields };
          }
          const object = c === LBRACE;
          stack.push({ object, keys: object ? new Set() : null, at: object ? "" : 0 });
          i = skipWs(s, i + 1);
          if (s.charCodeAt(i) === (object ? RBRACE : RBRACKET)) {
            stack.pop();
            i++;
            state = AFTER;
          } else {
            state = object ? KEY : VALUE;
          }
        } else if (c === QUOTE) {
          i = scanString(s, i);
          state = AFTER;
        } else if (c === MINUS || isDigit(c)) {
          i = scanNumber(s, i);
          state = AFTER;
        } else if (s.startsWith("true", i) || s.startsWith("null", i)) {
          i += 4;
          state = AFTER;
        } else if (s.startsWith("false", i)) {
          i += 5;
          state = AFTER;
        } else {
          throw new Syntax(`${unexpected(s, i)} where a value was expected`, i);
        }
      } else if (state === KEY) {
        if (s.charCodeAt(i) !== QUOTE) throw new Syntax(`${unexpected(s, i)} where a property name was expected`, i);
        const end = scanString(s, i);
        const raw = s.slice(i + 1, end - 1);
        // Only a key with escapes needs decoding; the token is already checked, so JSON.parse cannot fail.
        const key = raw.includes("\\") ? (JSON.parse(s.slice(i, end)) as string) : raw;
        const frame = stack[stack.length - 1];
        frame.at = key;
        if (frame.keys!.has(key)) {
          if (fields.length < maxProblems) fields.push({ path: pathOf(stack), message: "duplicate key" });
        } else {
          frame.keys!.add(key);
        }
        i = skipWs(s, end);
        if (s.charCodeAt(i) !== COLON) throw new Syntax(`${unexpected(s, i)} where ':' was expected`, i);
        i++;
        state = VALUE;
      } else {
        const frame = stack[stack.length - 1];
        if (frame === undefined) {
          if (i < s.length) throw new Syntax(`${unexpected(s, i)} after the end of the JSON value`, i);
          return fields.length ? { ok: false, fields } : { ok: true };
        }
        const c = s.charCodeAt(i);
        if (c === COMMA) {
          i++;
          if (frame.object) state = KEY;
          else {
            (frame.at as number)++;
            state = VALUE;
          }
        } else if (c === (frame.object ? RBRACE : RBRACKET)) {
          stack.pop();
          i++;
        } else {
          throw new Syntax(`${unexpected(s, i)} where ',' or '${frame.object ? "}" : "]"}' was expected`, i);
        }
      }
    }
  } catch (e) {
    if (!(e instanceof Syntax)) throw e;
    return { ok: false, syntax: { message: e.message, offset: e.offset, ...lineAndColumn(s, e.offset) } };
  }
}
