// Issue 14, item 5 ("Keys kept where they should not be"): redaction removed only exact copies of a key
// of 8+ characters, so a key echoed JSON-escaped, split or shorter than 8 characters was stored.
import { describe, expect, it } from "vitest";
import {
  fragmentLength,
  REDACTED,
  redactText,
  redactValue,
  createRedactor,
} from "../../../src/engines/redact/index.ts";
import { isRawJson, parsePyJson, pyRepr, pyStrRepr } from "../../../src/engines/python/index.ts";

// Printable ASCII without spaces, as the API accepts keys, with the characters escapes change.
const KEY = `sk-proj-"Qx\\7f'Zr/Lm&Np%Tv<Hy>Bc-0a1b2c3d4e5f6071`;
const PLAIN_KEY = "sk-or-v1-5f3a9c7e1b2d4a6f8e0c1a2b3c4d5e6f7a8b9c0d1e2f3a4b";

/** True if any `fragmentLength` run of the key's characters is left in `text`, in any form a test here writes. */
function leaks(text: string, key: string): boolean {
  const n = fragmentLength(key.length);
  for (let o = 0; o + n <= key.length; o++) {
    const part = key.slice(o, o + n);
    const forms = [part, JSON.stringify(part).slice(1, -1), encodeURIComponent(part), pyStrRepr(part).slice(1, -1)];
    if (forms.some((f) => text.includes(f))) return true;
  }
  return false;
}

const json = (s: string) => JSON.stringify(s).slice(1, -1);

describe("redactText: the key in every form it is echoed in", () => {
  it.each([
    ["as is", (k: string) => `Incorrect API key provided: ${k}.`],
    ["JSON-escaped", (k: string) => `{"error": {"message": "Incorrect API key provided: ${json(k)}."}}`],
    // A JSON string inside a JSON string: the backslashes of the first escape are escaped again.
    [
      "doubly JSON-escaped",
      (k: string) => JSON.stringify({ body: JSON.stringify({ error: { message: `key ${k}` } }) }),
    ],
    ["URL-encoded", (k: string) => `GET /v1/models?key=${encodeURIComponent(k)}&x=1`],
    [
      "URL-encoded, lower-case hex",
      (k: string) => `?key=${encodeURIComponent(k).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase())}`,
    ],
    ["doubly URL-encoded", (k: string) => `?next=${encodeURIComponent(`?key=${encodeURIComponent(k)}`)}`],
    // The OpenAI Python SDK's message: str() of the parsed body (pythonStatusMessage).
    [
      "Python repr of the body",
      (k: string) => {
        const parsed = parsePyJson(
          JSON.stringify({ error: { message: `Incorrect API key provided: ${k}`, code: null } }),
        );
        if (!parsed.ok) throw new Error(parsed.error);
        return `Error code: 401 - ${pyRepr(parsed.value)}`;
      },
    ],
    ["Python repr of a repr", (k: string) => pyStrRepr(pyStrRepr(k))],
    [
      "HTML-escaped (a proxy's error page)",
      (k: string) =>
        `<p>key ${k.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")}</p>`,
    ],
    [
      "JSON \\u escapes",
      (k: string) => [...k].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join(""),
    ],
  ])("%s", (_, echo) => {
    for (const key of [KEY, PLAIN_KEY]) {
      const text = echo(key);
      const out = redactText(text, [key]);
      expect(out).toContain(REDACTED);
      expect(leaks(out, key)).toBe(false);
    }
  });

  it("cuts whole escape sequences, so a JSON text stays JSON", () => {
    const body = JSON.stringify({ error: { message: `bad key ${KEY}`, nested: JSON.stringify({ k: KEY }) } });
    const out = redactText(body, [KEY]);
    expect(JSON.parse(out)).toEqual({
      error: { message: `bad key ${REDACTED}`, nested: JSON.stringify({ k: REDACTED }) },
    });
  });

  it("catches a key echoed in parts: halves apart, broken by a line, cut short", () => {
    const half = PLAIN_KEY.length / 2;
    const [head, tail] = [PLAIN_KEY.slice(0, half), PLAIN_KEY.slice(half)];
    expect(redactText(`first ${head} then ${tail} end`, [PLAIN_KEY])).toBe(`first ${REDACTED} then ${REDACTED} end`);
    expect(redactText(`${head}\n${tail}`, [PLAIN_KEY])).toBe(`${REDACTED}\n${REDACTED}`);
    expect(redactText(json(`key: ${head}\n${tail}`), [PLAIN_KEY])).toBe(`key: ${REDACTED}\\n${REDACTED}`);
    // A message truncated in the middle of the key (the agent loop keeps 160 code points).
    expect(redactText(`Incorrect API key provided: ${PLAIN_KEY.slice(0, 20)}`, [PLAIN_KEY])).toBe(
      `Incorrect API key provided: ${REDACTED}`,
    );
    // Escaped halves, with the quote and backslash inside them.
    const k = KEY;
    const out = redactText(JSON.stringify({ a: k.slice(0, 24), b: k.slice(24) }), [k]);
    expect(JSON.parse(out)).toEqual({ a: REDACTED, b: REDACTED });
  });

  it("finds a key ending in a backslash, escaped before a closing quote", () => {
    // Decoded, `\\"` reads as an escaped quote; the key's own escaped form decides.
    for (const key of ["Abc-123\\", "sk-0123456789abcdef0123456789\\"]) {
      const body = JSON.stringify({ error: { message: key } });
      expect(JSON.parse(redactText(body, [key]))).toEqual({ error: { message: REDACTED } });
      expect(redactText(pyStrRepr(key), [key])).toBe(`'${REDACTED}'`);
    }
  });

  it("takes 12 characters of a long key as the key, and 11 as not", () => {
    // fragmentLength: 12 for keys of 24 or more; half of a 16–23 character key; whole below 16.
    expect([40, 24, 23, 16, 15, 8].map(fragmentLength)).toEqual([12, 12, 11, 8, 15, 8]);
    const part = PLAIN_KEY.slice(10, 22);
    expect(redactText(`x ${part} y`, [PLAIN_KEY])).toBe(`x ${REDACTED} y`);
    expect(redactText(`x ${part.slice(1)} y`, [PLAIN_KEY])).toBe(`x ${part.slice(1)} y`);
  });

  it("redacts a key of 8–15 characters anywhere, but only whole", () => {
    const key = "k3y-Abc9xyz";
    expect(redactText(`token=${key}; id${key}x`, [key])).toBe(`token=${REDACTED}; id${REDACTED}x`);
    expect(redactText(`half ${key.slice(0, 6)}`, [key])).toBe(`half ${key.slice(0, 6)}`);
  });

  it("redacts a key shorter than 8 characters only where it stands alone", () => {
    // Removing every "abc" would destroy text; a key that is its own token is an echo.
    const key = "abc12";
    expect(redactText("Incorrect API key provided: abc12.", [key])).toBe(`Incorrect API key provided: ${REDACTED}.`);
    expect(redactText("{'error': 'bad key \"abc12\"'}", [key])).toBe(`{'error': 'bad key "${REDACTED}"'}`);
    expect(redactText("abc123 xabc12 abc12b", [key])).toBe("abc123 xabc12 abc12b");
    expect(redactText(`key=${encodeURIComponent('a"b')}`, ['a"b'])).toBe(`key=${REDACTED}`);
  });

  it("leaves unrelated text alone, escapes and encodings included", () => {
    const texts = [
      "",
      "The capital of France is Paris. 100% of 3 < 4 && 5 > 2; path C:\\\\Users\\\\me; \"quoted\" and 'single'.",
      JSON.stringify({ q: "v1", n: 1, s: "line\nbreak \\ back \u0001 ctrl", u: "%2F%41 &amp; &#34; \\u0041" }),
      "sk-proj-other-key-that-is-not-ours-0000000000000000",
      "Error code: 401 - {'error': {'message': 'Incorrect API key provided.', 'code': None}}",
    ];
    const redactor = createRedactor([KEY, PLAIN_KEY, "abc12", "k3y-Abc9xyz"]);
    for (const text of texts) expect(redactor.text(text)).toBe(text);
  });

  it("is idempotent and ignores empty secrets", () => {
    const once = redactText(`a ${KEY} b ${PLAIN_KEY}`, [KEY, PLAIN_KEY, "", undefined, null]);
    expect(once).toBe(`a ${REDACTED} b ${REDACTED}`);
    expect(redactText(once, [KEY, PLAIN_KEY])).toBe(once);
    expect(createRedactor(["", undefined]).active).toBe(false);
  });
});

describe("redactValue: every string of a JSON value", () => {
  it("redacts strings and object keys at any depth, and copies rather than changes", () => {
    const input = {
      row: { rationale: [`I used ${PLAIN_KEY}`], args: { [PLAIN_KEY]: { deep: [KEY] } } },
      n: 3,
      ok: true,
      none: null,
    };
    const snapshot = JSON.stringify(input);
    const out = redactValue(input, [KEY, PLAIN_KEY]);
    expect(out).toEqual({
      row: { rationale: [`I used ${REDACTED}`], args: { [REDACTED]: { deep: [REDACTED] } } },
      n: 3,
      ok: true,
      none: null,
    });
    expect(JSON.stringify(input)).toBe(snapshot);
  });

  it("keeps JSON.rawJSON values (1.0, big ints) as they are", () => {
    const raw = JSON as unknown as { rawJSON(t: string): unknown };
    const input = {
      args: { x: raw.rawJSON("1.0"), big: raw.rawJSON("123456789012345678901234567890"), s: KEY },
      list: [raw.rawJSON("-0.0")],
    };
    const out = redactValue(input, [KEY]);
    expect(isRawJson(out.args.x)).toBe(true);
    expect(out.args.x).toBe(input.args.x);
    expect(JSON.stringify(out)).toBe(
      `{"args":{"x":1.0,"big":123456789012345678901234567890,"s":"${REDACTED}"},"list":[-0.0]}`,
    );
  });

  it("keeps a __proto__ key a key", () => {
    const input = JSON.parse(`{"__proto__": {"k": "${json(KEY)}"}}`);
    const out = redactValue(input, [KEY]);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(JSON.stringify(out)).toBe(`{"__proto__":{"k":"${REDACTED}"}}`);
  });

  it("walks any depth without recursion", () => {
    let deep: unknown = KEY;
    for (let i = 0; i < 200_000; i++) deep = i % 2 ? [deep] : { d: deep };
    let out = redactValue(deep, [KEY]) as unknown;
    for (let i = 199_999; i >= 0; i--) out = i % 2 ? (out as unknown[])[0] : (out as { d: unknown }).d;
    expect(out).toBe(REDACTED);
  });

  it("returns the value itself when there is no secret", () => {
    const input = { a: [1, "x"] };
    expect(redactValue(input, [])).toBe(input);
  });
});
