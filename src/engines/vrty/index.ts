// Public door of the vrty engine (spec: shared/specs/vrty.md). Other layers import from here only.
export { canonicalJson, sha256Hex } from "./canonical-json.ts";
export { defaultIdf, defaultIdfInfo } from "./default-idf.ts";
export type { DefaultIdfInfo } from "./default-idf.ts";
export { buildIdfTable, prepareIdf } from "./idf.ts";
export type { BuildIdfOptions, Idf, IdfTableData } from "./idf.ts";
export { score, VRTY_VERSION, WEIGHTS } from "./score.ts";
export type { VrtyResult } from "./score.ts";
export { MAX_TOKENS, tokenize } from "./text.ts";
