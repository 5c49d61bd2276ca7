import { redactText } from "../redact/index.ts";

/**
 * Secret scrubbing for error texts (spec chain-determinism.md §2 "Secret scrubbing"), applied in
 * the reference's order. Python's `\s` (str patterns) is `str.isspace()`, which also covers
 * U+001C–U+001F and U+0085 and excludes U+FEFF, unlike JS `\s`; the class below spells Python's out.
 */
const WS = "[\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
const NOT_WS_QUOTE =
  "[^\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\"',<>]";

const RULES: Array<[RegExp, string]> = [
  [/sk-[A-Za-z0-9_-]{10,}/g, "sk-<REDACTED>"],
  [new RegExp(`(bearer)${WS}+[A-Za-z0-9_\\-\\.=]+`, "gi"), "$1 <REDACTED>"],
  [
    new RegExp(`(authorization|api[_\\-]?key|x-api-key)(${WS}*[:=]${WS}*["']?)(${NOT_WS_QUOTE}+)`, "gi"),
    "$1$2<REDACTED>",
  ],
];

/**
 * Redacts API keys, bearer tokens and `authorization`/`api_key`/`x-api-key` values in `text`: the
 * reference's three patterns, which give `<REDACTED>` (its golden vectors hold those texts). Given the
 * run's `secrets`, it first removes them in every form an endpoint may echo them, as the platform does
 * (src/engines/redact: escaped, encoded, in parts; `[REDACTED]`), which the patterns alone miss: a key
 * without an `sk-` prefix, or one broken by an escape (`sk-ab\"cd…` keeps everything after `\`).
 */
export function scrub(text: string, secrets: readonly string[] = []): string {
  let out = secrets.length > 0 ? redactText(text, secrets) : text;
  for (const [re, replacement] of RULES) out = out.replace(re, replacement);
  return out;
}
