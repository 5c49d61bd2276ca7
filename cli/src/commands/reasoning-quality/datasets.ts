// `assay datasets upload|list`: reasoning-quality datasets (the original's JSON items, the web UI's CSV,
// or GSM8K / MMLU / StrategyQA rows), stored on the server for `assay rq run` and the API.
import { type Command, Option } from "commander";
import { listReasoningQualityDatasets, uploadReasoningQualityDataset, type Dataset } from "@assay/sdk";
import { usageError } from "../../errors.ts";
import { printJson, table } from "../../output.ts";
import { FORMATS, formatOf, nameOf, uploadBody, type Format } from "./dataset-file.ts";
import { call, session } from "../../session.ts";

const positiveInt =
  (flag: string, max = Number.MAX_SAFE_INTEGER) =>
  (raw: string): number => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1 || n > max)
      throw usageError(`${flag} must be an integer from 1 to ${max}, got "${raw}"`);
    return n;
  };

const nonNegativeInt =
  (flag: string) =>
  (raw: string): number => {
    const n = Number(raw);
    if (!Number.isSafeInteger(n) || n < 0) throw usageError(`${flag} must be a non-negative integer, got "${raw}"`);
    return n;
  };

/** One line per dataset, as `datasets list` prints it. */
export function datasetRow(d: Dataset): string[] {
  return [d.id, d.name, d.format, String(d.n_items), d.datasets.join(","), d.created_at.replace(/\.\d+Z$/, "Z")];
}

export function register(program: Command): void {
  const datasets = program
    .command("datasets")
    .description("reasoning-quality datasets: upload your questions, list what is stored");

  datasets
    .command("upload")
    .description(
      "upload a dataset file: the original's JSON items ([{id?, question, answer, type?, perturbations?}]), CSV with question,answer columns, or benchmark rows",
    )
    .argument("<file>", "the file (`-` or /dev/stdin reads standard input); .jsonl files are read as one row per line")
    .option(
      "--name <name>",
      "the dataset's name, also the `dataset` tag of its items (default: the file's name without extension)",
    )
    .addOption(
      new Option("--format <format>", "how to read the file (default: csv for .csv, else json)").choices(FORMATS),
    )
    .option(
      "--num-samples <n>",
      "keep this many items, drawn with --seed (benchmarks: their sampling, reproduced)",
      positiveInt("--num-samples"),
    )
    .option("--seed <n>", "the sampling seed (default 42, the original's)", nonNegativeInt("--seed"))
    .option("--perturbations-column", "csv: read a `perturbations` column (a JSON array, or values separated by |)")
    .action(
      async (
        file: string,
        opts: { name?: string; format?: Format; numSamples?: number; seed?: number; perturbationsColumn?: boolean },
        cmd: Command,
      ) => {
        const stdin = file === "-" || file === "/dev/stdin";
        if (stdin && !opts.name) throw usageError("--name is required when the dataset comes from standard input");
        const s = session(cmd);
        const body = await uploadBody({
          path: file,
          name: opts.name ?? nameOf(file),
          format: opts.format ?? (stdin ? "json" : formatOf(file)),
          numSamples: opts.numSamples,
          seed: opts.seed,
          perturbationsColumn: opts.perturbationsColumn,
        });
        const ds = await call(s, uploadReasoningQualityDataset({ client: s.client, body }));
        if (s.json) return printJson(ds);
        const items = `${ds.n_items} item${ds.n_items === 1 ? "" : "s"}`;
        process.stdout.write(
          `uploaded ${ds.id}: ${ds.name} (${ds.format}, ${items}, datasets: ${ds.datasets.join(", ")})\n`,
        );
      },
    );

  datasets
    .command("list")
    .description("the uploaded datasets, newest first")
    .option("--limit <n>", "how many (1–100)", positiveInt("--limit", 100), 20)
    .action(async (opts: { limit: number }, cmd: Command) => {
      const s = session(cmd);
      const page = await call(s, listReasoningQualityDatasets({ client: s.client, query: { limit: opts.limit } }));
      if (s.json) return printJson(page);
      if (!page.data.length) return void process.stdout.write("no datasets\n");
      process.stdout.write(
        table(["id", "name", "format", "items", "datasets", "created"], page.data.map(datasetRow), [
          "left",
          "left",
          "left",
          "right",
        ]),
      );
    });
}
