// Public door of the Python-value engine: CPython's `json.loads` and `repr()`, for everything that must
// read or write values exactly as the original tools (Python) did. Used by the chain-determinism engine
// (tool arguments, sequence keys), the providers (the OpenAI Python SDK's error messages) and tests.
export { fromPlain, isRawJson, parseLossless, parsePyJson, pyFloatJson, toPlain } from "./lossless-json.ts";
export type { ParseResult, PyPlain, PyValue, RawJson } from "./lossless-json.ts";
export { headCodePoints, lenCodePoints, pyFloatRepr, pyRepr, pyStrRepr } from "./py-repr.ts";
