// `assay usage` and `assay settings`: what the tenant stores, and how long its ended runs are kept.
import type { Command } from "commander";
import { getSettings, getUsage, putSettings, type Settings, type Usage } from "@assay/sdk";
import { usageError } from "../errors.ts";
import { printJson } from "../output.ts";
import { call, session } from "../session.ts";

/** Bytes for people: 1,234 B, 12.3 KB, 4.56 MB, 1.23 GB (decimal units, as D1's and R2's limits are given). */
export function humanBytes(n: number): string {
  if (n < 1000) return `${n} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let v = n;
  let u = -1;
  while (v >= 1000 && u < units.length - 1) {
    v /= 1000;
    u++;
  }
  return `${v.toPrecision(3)} ${units[u]}`;
}

/** One line per quota: what the tenant used of its limit (docs/quotas.md). */
function quotaLines(q: Usage["quotas"]): string[] {
  const line = (label: string, s: { used: number; limit: number }, show = (n: number) => String(n)) =>
    `  ${label.padEnd(22)}${show(s.used)} of ${show(s.limit)}`;
  return [
    "quotas",
    line("runs per minute", q.runs_per_minute),
    line("concurrent runs", q.concurrent_runs),
    line("units today (UTC)", q.units_per_day),
    line("stored", q.stored_bytes, humanBytes),
    line("heavy reads per minute", q.heavy_reads_per_minute),
  ];
}

const retentionText = (s: Settings) =>
  s.retention_days === null ? "kept for ever" : `kept ${s.retention_days} days after they end`;

/** `--retention-days`: a whole number of days, or `forever` (kept as the word: commander takes a null from a parser for "no value"). */
function retentionDays(raw: string): number | "forever" {
  if (raw === "forever") return raw;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw usageError(`--retention-days must be a whole number of days or "forever", got "${raw}"`);
  return n;
}

export function register(program: Command): void {
  program
    .command("usage")
    .description(
      "what your tenant stores (runs, samples, bytes in the database and in object storage), how long runs are kept, and where it stands against its quotas",
    )
    .action(async (_opts: unknown, cmd: Command) => {
      const s = session(cmd);
      const [usage, settings] = await Promise.all([
        call(s, getUsage({ client: s.client })),
        call(s, getSettings({ client: s.client })),
      ]);
      if (s.json) return printJson({ ...usage, retention_days: settings.retention_days });
      process.stdout.write(
        [
          `runs      ${usage.runs}`,
          `samples   ${usage.samples}`,
          `stored    ${humanBytes(usage.bytes.total)} (database ${humanBytes(usage.bytes.d1)}, objects ${humanBytes(usage.bytes.r2)})`,
          `retention ended runs ${retentionText(settings)}`,
          ...quotaLines(usage.quotas),
        ].join("\n") + "\n",
      );
    });

  program
    .command("settings")
    .description("your tenant's settings; with --retention-days, set how long ended runs are kept")
    .option("--retention-days <days>", 'days an ended run is kept, or "forever"', retentionDays)
    .action(async (opts: { retentionDays?: number | "forever" }, cmd: Command) => {
      const s = session(cmd);
      const settings =
        opts.retentionDays === undefined
          ? await call(s, getSettings({ client: s.client }))
          : await call(
              s,
              putSettings({
                client: s.client,
                body: { retention_days: opts.retentionDays === "forever" ? null : opts.retentionDays },
              }),
            );
      if (s.json) return printJson(settings);
      process.stdout.write(`retention: ended runs ${retentionText(settings)}\n`);
    });
}
