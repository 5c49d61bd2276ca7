// Ctrl-C, for the whole command. Before a command starts a run, Ctrl-C leaves at once (exit 130). From
// the moment it is about to create one (`armForRuns`), Ctrl-C no longer kills the process: the run that
// is being created or followed is canceled first (follow.ts), so no run is left going behind the user's
// back. A second Ctrl-C leaves at once.
import { EXIT } from "./errors.ts";

let armed = false;
let count = 0;
const listeners = new Set<() => void>();

export function installInterruptHandler(): void {
  process.on("SIGINT", () => {
    count++;
    if (!armed || count > 1) {
      process.stderr.write("\ninterrupted\n");
      process.exit(EXIT.interrupted);
    }
    for (const listener of listeners) listener();
  });
}

/** From now on Ctrl-C cancels this command's runs instead of leaving at once. */
export function armForRuns(): void {
  armed = true;
}

export function interrupted(): boolean {
  return count > 0;
}

/** Calls `fn` on Ctrl-C (at once if it was already pressed); returns the unsubscribe. */
export function onInterrupt(fn: () => void): () => void {
  if (count > 0) queueMicrotask(fn);
  listeners.add(fn);
  return () => listeners.delete(fn);
}
