// Public door of secret redaction: pure, so the engines (the chain-determinism scrub), the providers
// (scrubSecrets) and the run platform (src/runs/results/redact.ts) share one definition of "the key, in any
// form an endpoint may echo it".
export { createRedactor, fragmentLength, MIN_SECRET_LENGTH, REDACTED, redactText, redactValue } from "./redact.ts";
export type { Redactor } from "./redact.ts";
