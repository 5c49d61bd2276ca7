// Reading and writing the user's files. `-` and /dev/stdin read standard input, as in vrty.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { parse as parseYaml } from "yaml";
import { CliError } from "./errors.ts";

const STDIN = new Set(["-", "/dev/stdin"]);

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function reason(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (e?.code === "ENOENT") return "no such file";
  if (e?.code === "EISDIR") return "is a directory";
  if (e?.code === "EACCES") return "permission denied";
  return e?.message ?? String(err);
}

export async function readText(path: string): Promise<string> {
  if (STDIN.has(path)) return readStdin();
  try {
    return await readFile(path, "utf8");
  } catch (err) {
    throw new CliError(`cannot read ${path}: ${reason(err)}`);
  }
}

export async function readBytes(path: string): Promise<Uint8Array> {
  if (STDIN.has(path)) return new TextEncoder().encode(await readStdin());
  try {
    return await readFile(path);
  } catch (err) {
    throw new CliError(`cannot read ${path}: ${reason(err)}`);
  }
}

export async function readJson(path: string): Promise<unknown> {
  const text = await readText(path);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new CliError(`${path} is not valid JSON: ${(err as Error).message}`);
  }
}

/** One JSON value per non-blank line; a bad line is named by its number. */
export async function readJsonl(path: string): Promise<unknown[]> {
  const out: unknown[] = [];
  const lines = (await readText(path)).split(/\r?\n/);
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    try {
      out.push(JSON.parse(line));
    } catch (err) {
      throw new CliError(`${path} line ${i + 1} is not valid JSON: ${(err as Error).message}`);
    }
  });
  return out;
}

export async function readYaml(path: string): Promise<unknown> {
  const text = await readText(path);
  try {
    return parseYaml(text);
  } catch (err) {
    throw new CliError(`${path} is not valid YAML: ${(err as Error).message.split("\n")[0].replace(/:\s*$/, "")}`);
  }
}

export async function writeText(path: string, text: string | Uint8Array): Promise<void> {
  try {
    if (path === "-" || path === "/dev/stdout") {
      process.stdout.write(text);
      return;
    }
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text);
  } catch (err) {
    throw new CliError(`cannot write ${path}: ${reason(err)}`);
  }
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
