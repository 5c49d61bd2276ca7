// `assay runs list|get|watch|cancel|delete|samples|events`: any run, whatever its evaluator.
import { createInterface } from "node:readline/promises";
import { type Command, Option } from "commander";
import { cancelRun, deleteRun, listRuns, listSamples, type Run } from "@assay/sdk";
import { eachItem } from "@assay/sdk/pages";
import { CliError, EXIT, usageError } from "../errors.ts";
import { followRun } from "../follow.ts";
import { getFullRun } from "../run-result.ts";
import { printJson, table } from "../output.ts";
import { call, session, type Session } from "../session.ts";
import { runId } from "../args.ts";

const STATUSES = ["queued", "running", "succeeded", "failed", "canceled"] as const;

function age(iso: string, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

/** One line per run: what `runs list` prints. */
export function runRow(run: Run): string[] {
  const p = run.progress;
  return [
    run.id,
    run.evaluator,
    run.status,
    `${p.done}/${p.total}${p.failed ? ` (${p.failed} failed)` : ""}`,
    age(run.created_at),
  ];
}

/** A run for people: its state, progress, error and links (the result is printed with --json). */
export function describeRun(run: Run): string {
  const p = run.progress;
  const lines = [
    `${run.id}  ${run.evaluator}  ${run.status}`,
    `progress  ${p.done}/${p.total} done, ${p.failed} failed`,
    `created   ${run.created_at}${run.finished_at ? `  finished ${run.finished_at}` : ""}`,
  ];
  if (run.calls)
    lines.push(
      `calls     ${run.calls.requests} requests, ${run.calls.retries} retries, ${run.calls.rate_limited} answered 429`,
    );
  const endpoint = run.endpoint;
  if (endpoint)
    lines.push(
      `endpoint  ${endpoint.adaptive ? "adaptive" : "bounded"} concurrency: window up to ${endpoint.max_limit}, at most ${endpoint.max_in_flight} in flight`,
    );
  if (run.error) lines.push(`error     ${run.error}`);
  for (const [name, href] of Object.entries(run.links)) lines.push(`${name.padEnd(9)} ${href}`);
  return lines.join("\n") + "\n";
}

async function get(s: Session, id: string): Promise<Run> {
  return getFullRun(s, id);
}

export function register(program: Command): void {
  const runs = program.command("runs").description("list, read, follow and cancel runs of any evaluator");

  runs
    .command("list")
    .description("the newest runs first")
    .addOption(
      new Option("--evaluator <name>", "only this evaluator's runs").choices([
        "chain-determinism",
        "rpl",
        "judge",
        "reasoning-quality",
      ]),
    )
    .addOption(new Option("--status <status>", "only runs in this state").choices(STATUSES))
    .option(
      "--limit <n>",
      "how many (1–100)",
      (v) => {
        const n = Number(v);
        if (!Number.isInteger(n) || n < 1 || n > 100)
          throw usageError(`--limit must be an integer from 1 to 100, got "${v}"`);
        return n;
      },
      20,
    )
    .action(async (opts: { evaluator?: string; status?: (typeof STATUSES)[number]; limit: number }, cmd: Command) => {
      const s = session(cmd);
      const page = await call(
        s,
        listRuns({ client: s.client, query: { evaluator: opts.evaluator, status: opts.status, limit: opts.limit } }),
      );
      if (s.json) return printJson(page);
      if (!page.data.length) return void process.stdout.write("no runs\n");
      process.stdout.write(table(["id", "evaluator", "status", "progress", "age"], page.data.map(runRow)));
    });

  runs
    .command("get")
    .description("one run: its state, and with --json everything, result included")
    .argument("<run>", "run id", runId)
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const s = session(cmd);
      const run = await get(s, id);
      if (s.json) return printJson(run);
      process.stdout.write(describeRun(run));
    });

  runs
    .command("watch")
    .description(
      "follow a run to its end with a progress bar; Ctrl-C cancels it (with --no-cancel, only stops watching)",
    )
    .argument("<run>", "run id", runId)
    .option("--no-cancel", "Ctrl-C stops watching and leaves the run going")
    .action(async (id: string, opts: { cancel: boolean }, cmd: Command) => {
      const s = session(cmd);
      const run = await followRun(s, id, { cancelOnInterrupt: opts.cancel });
      if (!run) return;
      if (s.json) printJson(run);
      else process.stdout.write(describeRun(run));
      if (run.status !== "succeeded") process.exitCode = EXIT.couldNotRun;
    });

  runs
    .command("cancel")
    .description("cancel a run that has not ended (a run that has ended is left as it is, and said so)")
    .argument("<run>", "run id", runId)
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const s = session(cmd);
      let run: Run;
      try {
        run = await call(s, cancelRun({ client: s.client, path: { run_id: id } }));
      } catch (err) {
        // 409: it has ended already, which is what the caller wanted to be true.
        if (!(err instanceof CliError && err.status === 409)) throw err;
        run = await get(s, id);
        if (s.json) return printJson(run);
        return void process.stdout.write(`run ${run.id} had already ended: ${run.status}\n`);
      }
      if (s.json) return printJson(run);
      process.stdout.write(`run ${run.id} ${run.status}\n`);
    });

  runs
    .command("delete")
    .description("delete an ended run with its samples, result and everything stored of it (asks first unless --yes)")
    .argument("<run>", "run id", runId)
    .option("--yes", "do not ask; needed when stdin is not a terminal")
    .action(async (id: string, opts: { yes?: boolean }, cmd: Command) => {
      const s = session(cmd);
      if (!opts.yes && !(await confirmed(`Delete run ${id} and all its data? This cannot be undone. [y/N] `))) {
        throw new CliError("not deleted", EXIT.couldNotRun);
      }
      const answer = await call(s, deleteRun({ client: s.client, path: { run_id: id } }));
      // 204 (no body): all gone. 202: the run is gone for every read; the server removes the rest.
      const status = answer && typeof answer === "object" && "status" in answer ? "deleting" : "deleted";
      if (s.json) return printJson({ id, status });
      process.stdout.write(
        status === "deleted"
          ? `run ${id} deleted\n`
          : `run ${id} deleted; the server removes the rest of its data within minutes\n`,
      );
    });

  runs
    .command("samples")
    .description("every sample of a run, one JSON object per line (all pages)")
    .argument("<run>", "run id", runId)
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const s = session(cmd);
      // Streamed: one page in memory at a time, however long the run.
      const samples = eachItem((after) =>
        call(s, listSamples({ client: s.client, path: { run_id: id }, query: { limit: 100, after } })),
      );
      for await (const sample of samples) process.stdout.write(JSON.stringify(sample) + "\n");
    });

  runs
    .command("events")
    .description(
      "the run's events as they happen (unit, progress, final), one JSON object per line with its id, each once across the server's reconnects, until it ends",
    )
    .argument("<run>", "run id", runId)
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const s = { ...session(cmd), json: true };
      const run = await followRun(s, id, {
        cancelOnInterrupt: false,
        onEvent: (event, data, id) => process.stdout.write(JSON.stringify({ event, id, data }) + "\n"),
      });
      if (run && run.status !== "succeeded") process.exitCode = EXIT.couldNotRun;
    });
}

/**
 * Asks on the terminal; without one (a script, CI) there is nobody to ask, and a destructive command
 * must not go ahead silently: that is a usage error naming --yes (gh's convention).
 */
async function confirmed(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) throw usageError("stdin is not a terminal, so nobody can confirm: pass --yes to delete");
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}
