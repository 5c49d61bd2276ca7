// Runs the built CLI as a user would (node bin/assay.js), against the test server.
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { inject } from "vitest";

export const BIN = join(import.meta.dirname, "..", "..", "cli", "bin", "assay.js");

export type Result = { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string };

export type RunOptions = {
  /** Extra environment; ASSAY_URL and ASSAY_API_KEY default to the test server and its dev key. */
  env?: Record<string, string | undefined>;
  /** Written to the CLI's standard input, then closed. */
  input?: string;
  cwd?: string;
  /** Called once with the child when it has started (to send signals, say). */
  onSpawn?: (child: ChildProcess) => void;
  /** Another build of the CLI to run (default: the package's, BIN). */
  bin?: string;
};

/** The environment a CLI test runs with: nothing of the developer's own keys or server leaks in. */
export function cliEnv(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ASSAY_URL: inject("assayUrl"),
    ASSAY_API_KEY: "assay_sk_local_dev_key",
  };
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export function assay(args: string[], opts: RunOptions = {}): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [opts.bin ?? BIN, ...args], {
      cwd: opts.cwd,
      env: cliEnv(opts.env) as NodeJS.ProcessEnv,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (b: Buffer) => (stdout += b.toString()));
    child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
    child.stdin.end(opts.input ?? "");
    opts.onSpawn?.(child);
  });
}

/** Waits until `read()` contains `text` (the child's output so far), checking as output arrives. */
export async function outputContains(
  child: ChildProcess,
  stream: "stdout" | "stderr",
  text: string | RegExp,
): Promise<string> {
  let seen = "";
  return new Promise((resolve, reject) => {
    const s = child[stream]!;
    const onData = (b: Buffer) => {
      seen += b.toString();
      if (typeof text === "string" ? seen.includes(text) : text.test(seen)) {
        s.off("data", onData);
        resolve(seen);
      }
    };
    s.on("data", onData);
    child.once("close", () => reject(new Error(`exited before ${stream} showed ${text}; it showed:\n${seen}`)));
  });
}
