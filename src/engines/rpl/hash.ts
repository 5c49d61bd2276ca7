// The RPL identifiers hash with SHA-256 through WebCrypto, so every hashing function in this engine is async.
export { sha256Hex } from "../sha256.ts";
