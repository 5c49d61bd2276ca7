/**
 * The run platform's side of secret redaction (the rules are in src/engines/redact): a run's secrets
 * are removed from everything a unit hands over to be stored or shown, whether the model's answer
 * was a success or a failure. A key in a stored sample is a key kept, so a model that repeats its key
 * (or a critic's, a checker's, an embedder's) in a rationale, a tool argument, a verdict or an answer
 * gets `[REDACTED]` there too, in the sample, its NDJSON line, its event, and what is aggregated from it.
 *
 * Pure (no `cloudflare:*`, no `env`): the lane calls it with the secrets it decrypted.
 */
import { createRedactor, type Redactor } from "../../engines/redact/index.ts";
import type { SampleCache, UnitOutcome } from "../plugin/types.ts";

/** A run's secrets: the named map the lane decrypts (`{provider, "critic:0", …}`), or a plain list. */
export type RunSecrets = Readonly<Record<string, string | undefined>> | readonly (string | undefined)[];

// One compiled redactor per secrets object, for as long as the caller keeps that object: the lane
// replaces its map when it forgets a run's secrets, and the redactor goes with it. Nothing here keeps a
// secret beyond its owner's life (no cache keyed by the secrets' text).
const compiled = new WeakMap<object, Redactor>();

/** The redactor for a run's secrets (every value of the map counts: provider, critics, checker, embedder). */
export function runRedactor(secrets: RunSecrets | Redactor): Redactor {
  if (isRedactor(secrets)) return secrets;
  let redactor = compiled.get(secrets);
  if (!redactor)
    compiled.set(secrets, (redactor = createRedactor(Array.isArray(secrets) ? secrets : Object.values(secrets))));
  return redactor;
}

function isRedactor(v: unknown): v is Redactor {
  return (
    typeof v === "object" &&
    v !== null &&
    typeof (v as Redactor).text === "function" &&
    typeof (v as Redactor).value === "function"
  );
}

/**
 * A unit's outcome with the run's secrets redacted from its output (every string and object key, at
 * any depth; `JSON.rawJSON` numbers kept as they are) and its error. Status is unchanged: what an
 * evaluator measured (a number, a label, valid or not) was decided before, from the answer as it came.
 * Call it on every outcome before it is reported, so the sample, its events and the aggregate all see
 * the redacted one.
 */
export function redactOutcome(outcome: UnitOutcome, secrets: RunSecrets | Redactor): UnitOutcome {
  const redactor = runRedactor(secrets);
  if (!redactor.active) return outcome;
  const redacted: UnitOutcome = { ...outcome, output: redactor.value(outcome.output) };
  if (outcome.error !== undefined) redacted.error = redactor.text(outcome.error);
  return redacted;
}

/**
 * A sample cache whose writes are redacted: rpl stores its row in the tenant's cache from inside
 * `execute`, before the outcome reaches the platform, so the cache needs its own redaction.
 */
export function redactingCache(cache: SampleCache, secrets: RunSecrets | Redactor): SampleCache {
  const redactor = runRedactor(secrets);
  return {
    get: (key) => cache.get(key),
    put: (key, value) => cache.put(key, redactor.value(value)),
  };
}
