// Thresholds that turn a result into an exit code for CI: 0 when every check passes, 3 when one fails
// (distinct from 1, "could not run"). Each check prints one line on stderr saying what was compared.
import { EXIT, usageError } from "./errors.ts";

export type Check = {
  /** The flag, as the user typed it: `--max-divergence`. */
  flag: string;
  /** What the value is: `divergence_rate`. */
  metric: string;
  value: number | null | undefined;
  threshold: number;
  /** `max`: value must be <= threshold; `min`: value must be >= threshold. */
  kind: "max" | "min";
};

/** commander's argParser for a threshold flag: a finite number, or a usage error naming the flag. */
export function threshold(flag: string) {
  return (raw: string): number => {
    const n = Number(raw);
    if (raw.trim() === "" || !Number.isFinite(n)) throw usageError(`${flag} must be a number, got "${raw}"`);
    return n;
  };
}

/** Prints each check and returns the exit code: 0 when all pass (or there are none), else 3. */
export function gate(checks: Check[], out: NodeJS.WritableStream = process.stderr): number {
  let failed = 0;
  for (const c of checks) {
    const ok =
      typeof c.value === "number" &&
      Number.isFinite(c.value) &&
      (c.kind === "max" ? c.value <= c.threshold : c.value >= c.threshold);
    if (!ok) failed++;
    const op = c.kind === "max" ? "<=" : ">=";
    out.write(
      `gate ${ok ? "passed" : "FAILED"}: ${c.metric} ${c.value ?? "n/a"} ${ok ? op : `not ${op}`} ${c.threshold} (${c.flag})\n`,
    );
  }
  return failed ? EXIT.gateFailed : EXIT.ok;
}
