// `assay`: the five original tools' verbs on the command line, with the assay API behind them.
import { Command, CommanderError, Option } from "commander";
import { CliError, EXIT } from "./errors.ts";
import { installInterruptHandler } from "./interrupt.ts";
import { COMMANDS } from "./commands/index.ts";

export function buildProgram(): Command {
  const program = new Command("assay")
    .description("LLM evaluations from the command line, run by an assay server")
    .version(VERSION)
    .addOption(
      new Option(
        "--server <url>",
        "assay server (default: $ASSAY_URL, else http://127.0.0.1:8787, the local dev server)",
      ),
    )
    .option("--json", "machine-readable output on stdout (no tables, no progress bar)")
    .addHelpText(
      "after",
      "\nEnvironment: ASSAY_URL, ASSAY_API_KEY (default: the local dev key, for the local server only),\nADMIN_TOKEN (assay admin; default: the local one, for the local server only),\nOPENAI_API_KEY, OPENROUTER_API_KEY and the configs' api_key_env for model keys.\n\nExit codes: 0 success, 1 could not run (I/O, server, run failed), 2 usage error, 3 a gate failed (--max-*/--min-*, compare --fail-on-regression), 130 Ctrl-C.",
    )
    .showHelpAfterError("(run with --help for usage)");
  for (const add of COMMANDS) add(program);
  // Every (sub)command throws instead of exiting, so main() decides the exit code.
  const override = (cmd: Command) => {
    cmd.exitOverride();
    cmd.commands.forEach(override);
  };
  override(program);
  return program;
}

declare const __VERSION__: string | undefined;
const VERSION = typeof __VERSION__ === "string" ? __VERSION__ : "0.1.0";

/** Flushes stdout before leaving, so piped output is never cut short. */
async function exit(code: number): Promise<never> {
  await new Promise<void>((resolve) => process.stdout.write("", () => resolve()));
  process.exit(code);
}

export async function main(argv: string[] = process.argv): Promise<never> {
  installInterruptHandler();
  // A reader that stops early (`| head`) is not an error of ours.
  process.stdout.on("error", (err: NodeJS.ErrnoException) =>
    process.exit(err.code === "EPIPE" ? EXIT.ok : EXIT.couldNotRun),
  );
  try {
    await buildProgram().parseAsync(argv);
    return exit(typeof process.exitCode === "number" ? process.exitCode : EXIT.ok);
  } catch (err) {
    if (err instanceof CommanderError) {
      // commander has already printed its message. --help and --version exit 0; help shown because a
      // verb is missing (`assay rq`) is a usage error, so a CI step with a forgotten verb fails.
      return exit(err.exitCode === 0 ? EXIT.ok : EXIT.usage);
    }
    if (err instanceof CliError) {
      process.stderr.write(`assay: ${err.message}\n`);
      return exit(err.exitCode);
    }
    process.stderr.write(`assay: ${(err as Error)?.message ?? String(err)}\n`);
    return exit(EXIT.couldNotRun);
  }
}

await main();
