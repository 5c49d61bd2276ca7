// Exit codes and the one error type of the CLI. vrty's codes (0 success, 1 I/O error, 2 usage error)
// extended for CI: a run that worked but missed a threshold is 3, never confused with "could not run".
export const EXIT = {
  ok: 0,
  /** Could not run: a file, the server, the network, or the run itself failed. */
  couldNotRun: 1,
  /** The command line is wrong: unknown flag, missing or malformed value. */
  usage: 2,
  /** Ran fine, and a --max-… or --min-… threshold failed. */
  gateFailed: 3,
  /** Interrupted with Ctrl-C (the run was canceled unless --detach). */
  interrupted: 130,
} as const;

/** An error the user reads as one line (`assay: <message>`), never a stack trace. */
export class CliError extends Error {
  readonly exitCode: number;
  /** The HTTP status, when the error is the API's answer. */
  readonly status?: number;
  constructor(message: string, exitCode: number = EXIT.couldNotRun, status?: number) {
    super(message);
    this.name = "CliError";
    this.exitCode = exitCode;
    this.status = status;
  }
}

export const usageError = (message: string) => new CliError(message, EXIT.usage);

type ProblemLike = { title?: unknown; status?: unknown; detail?: unknown; errors?: unknown };

/** An API problem+json as one readable line: title, detail and the field paths it names. */
export function problemLine(problem: unknown, status?: number): string {
  if (problem && typeof problem === "object") {
    const p = problem as ProblemLike;
    const head = [p.status ?? status, p.title].filter((x) => x !== undefined && x !== "").join(" ");
    const parts = [head, typeof p.detail === "string" ? p.detail : undefined].filter(Boolean);
    const fields = Array.isArray(p.errors)
      ? p.errors
          .map((e) =>
            e && typeof e === "object"
              ? `${(e as { path?: unknown }).path}: ${(e as { message?: unknown }).message}`
              : String(e),
          )
          .join("; ")
      : "";
    return parts.join(": ") + (fields ? ` (${fields})` : "");
  }
  // An error page (a proxy's HTML, say) is cut down to one line.
  const text = typeof problem === "string" ? problem.replace(/\s+/g, " ").trim() : "";
  return (
    [status ? `HTTP ${status}` : "", text.slice(0, 300)].filter(Boolean).join(": ") ||
    "the server answered with an error"
  );
}
