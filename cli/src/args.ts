// Argument parsers shared by the verbs (commander's argParser): a bad value is a usage error naming it.
import { usageError } from "./errors.ts";

/** A run id as the API makes them (`run_…`): letters, digits, `_` and `-`. */
export function runId(raw: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(raw)) throw usageError(`not a run id: "${raw}"`);
  return raw;
}
