// Public door of the Python-value engine: CPython's `json.loads`, `repr()`, `str()`, `float()`, its `str`
// methods and code-point counting and ordering, for everything that must read or write values exactly as
// the original tools (Python) did. The one home of these helpers: the engines (chain-determinism keys and
// records, judge verdicts, reasoning-quality matching, rpl lengths, redaction), the providers (the OpenAI
// Python SDK's error messages) and tests import them from here.
export { fromPlain, isRawJson, parseLossless, parsePyJson, pyFloatJson, pyTruthy, toPlain } from "./lossless-json.ts";
export type { ParseResult, PyPlain, PyValue, RawJson } from "./lossless-json.ts";
export { pyRepr, pyStrRepr } from "./py-repr.ts";
export { asciiDigits, decimalDigitValue, pyDecimalFloat, pyFloatRepr } from "./float.ts";
export { compareCodePoints, headCodePoints, lenCodePoints } from "./code-points.ts";
export {
  B_AFTER_WORD,
  B_BEFORE_WORD,
  PY_WS,
  S,
  W,
  collapseWhitespace,
  escapeRegExp,
  isBlank,
  pyRstripChars,
  pySplit,
  pySplitlines,
  pyStrip,
} from "./str.ts";
export { PY_INF, PY_NAN, PY_NINF, pyFloat, pyStr, substitutePyTokens } from "./plain.ts";
