// A dataset file on disk as the upload body of POST /v1/reasoning-quality/datasets. Shared by
// `assay datasets upload` and the `datasets` of `assay rq run`'s config.
import { basename, extname } from "node:path";
import type { DatasetUpload } from "@assay/sdk";
import { CliError } from "../../errors.ts";
import { isRecord, readJson, readJsonl, readText } from "../../io.ts";

export const FORMATS = ["json", "csv", "gsm8k", "mmlu", "strategyqa"] as const;
export type Format = (typeof FORMATS)[number];

export type FileUpload = {
  path: string;
  name: string;
  format: Format;
  numSamples?: number;
  seed?: number;
  perturbationsColumn?: boolean;
};

/** The format a file's name suggests: `.csv` is CSV, anything else the original's JSON items. */
export function formatOf(path: string): Format {
  return extname(path).toLowerCase() === ".csv" ? "csv" : "json";
}

/** A dataset's default name: the file's name without its extension (`data/my_questions.json` → `my_questions`). */
export function nameOf(path: string): string {
  return basename(path, extname(path)) || "dataset";
}

/** A list of rows: a JSON array, or JSON Lines (`.jsonl`, as benchmark rows are often exported). */
async function readRows(path: string): Promise<unknown[]> {
  if (extname(path).toLowerCase() === ".jsonl") return readJsonl(path);
  const value = await readJson(path);
  if (!Array.isArray(value)) throw new CliError(`${path} must hold a JSON array of rows`);
  return value;
}

/** Reads the file and builds the upload body; a missing or malformed file is one line, exit 1. */
export async function uploadBody(f: FileUpload): Promise<DatasetUpload> {
  const body: DatasetUpload = { name: f.name, format: f.format };
  switch (f.format) {
    case "csv":
      body.csv = await readText(f.path);
      if (f.perturbationsColumn) body.perturbations_column = true;
      break;
    case "json":
      body.items = await readRows(f.path);
      break;
    case "gsm8k":
    case "strategyqa":
      body.rows = await readRows(f.path);
      break;
    case "mmlu": {
      const bySubject = await readJson(f.path);
      if (!isRecord(bySubject))
        throw new CliError(`${f.path} must hold a JSON object mapping each MMLU subject to its rows`);
      body.rows = bySubject as Record<string, unknown[]>;
      break;
    }
  }
  if (f.numSamples !== undefined) body.num_samples = f.numSamples;
  if (f.seed !== undefined) body.seed = f.seed;
  return body;
}

/** How many rows a body holds (before the server's sampling), for a default `num_samples`. */
export function rowCount(body: DatasetUpload): number {
  if (Array.isArray(body.rows)) return body.rows.length;
  if (body.rows) return Object.values(body.rows).reduce((n, rows) => n + (Array.isArray(rows) ? rows.length : 0), 0);
  return body.items?.length ?? 0;
}
