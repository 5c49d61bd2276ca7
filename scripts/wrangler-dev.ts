// Starts `wrangler dev` on a fresh local state (for the benchmarks and the README test), and stops it
// with its workerd children.
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureDevVars, OFFLINE_ENV, prepareLocalDb } from "./dev-setup.ts";

const root = join(import.meta.dirname, "..");

/** A port free on 127.0.0.1 right now, for a server to listen on. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** `state`: the folder of its local state (D1's SQLite file is under it), removed by `stop`. */
export type DevServer = { base: string; state: string; stop(): Promise<void> };

/**
 * Where wrangler keeps the run's local state (D1, Durable Object storage): on disk, as `npm start`
 * does, or in memory. Locally every Durable Object and D1 commit is an fsync of a SQLite file on
 * the one thread that runs the Worker, its objects and D1, so on disk a benchmark measures the
 * machine's disk as well as the API (in production, storage is not on that thread).
 */
export type StateIn = "disk" | "memory";

/** Linux's RAM-backed /dev/shm, when the machine has it. */
export const MEMORY_DIR = existsSync("/dev/shm") ? "/dev/shm" : null;

/**
 * `onOutput` receives what wrangler prints (at its default log level); without it, wrangler prints
 * errors only and its output is dropped, so a benchmark measures nothing but the API.
 */
export async function startWranglerDev(
  port: number,
  stateIn: StateIn = "disk",
  onOutput?: (text: string) => void,
  /** Variables for this server only (`--var`), over wrangler.jsonc's and .dev.vars'. */
  vars: Record<string, string> = {},
  /** The Worker's entry module instead of wrangler.jsonc's `main` (the toy evaluator's tests serve one). */
  entry?: string,
): Promise<DevServer> {
  const parent = stateIn === "memory" && MEMORY_DIR ? MEMORY_DIR : tmpdir();
  const state = mkdtempSync(join(parent, "assay-bench-"));
  ensureDevVars();
  prepareLocalDb(state);
  // detached: the whole process group (wrangler's node and its workerd children) is stopped together.
  const logLevel = onOutput ? [] : ["--log-level", "error"];
  const varArgs = Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]);
  const dev = spawn(
    "wrangler",
    [
      "dev",
      ...(entry ? [entry] : []),
      "--ip",
      "127.0.0.1",
      "--port",
      String(port),
      "--persist-to",
      state,
      ...logLevel,
      ...varArgs,
    ],
    {
      cwd: root,
      detached: true,
      stdio: onOutput ? ["ignore", "pipe", "pipe"] : "ignore",
      // X_LOCAL_OBSERVABILITY=false turns off wrangler's local trace collector (the local explorer's
      // traces, not the Worker's production logs): it tails every invocation, each RPC and alarm
      // included, into a SQLite store of its own on the same machine, about a fifth of workerd's CPU
      // in the 500-replay run.
      // WRANGLER_REGISTRY_PATH: a dev registry of its own. Every wrangler dev on a machine otherwise shares
      // one (~/.config/.wrangler/registry): each is told whenever another starts or stops, and a queue's
      // messages may be handed to another session's consumer. The tests' and benchmarks' servers (all
      // named `assay`, all consuming `assay-units`) start and stop beside each other; each stays alone.
      env: {
        ...process.env,
        ...OFFLINE_ENV,
        X_LOCAL_OBSERVABILITY: "false",
        WRANGLER_REGISTRY_PATH: join(state, "registry"),
      },
    },
  );
  dev.stdout?.on("data", (b: Buffer) => onOutput?.(b.toString()));
  dev.stderr?.on("data", (b: Buffer) => onOutput?.(b.toString()));
  const base = `http://127.0.0.1:${port}`;
  const exited = new Promise<void>((resolve) => dev.once("exit", () => resolve()));
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-dev.pid!, name);
    } catch {
      // already gone
    }
  };
  // Stopped means gone from its port: a next server on the same port (the bench's memory run after
  // its disk run) must never have its health check answered by this one.
  const stop = async () => {
    signal("SIGTERM");
    const kill = setTimeout(() => signal("SIGKILL"), 10_000);
    await exited;
    while (
      await fetch(`${base}/healthz`).then(
        () => true,
        () => false,
      )
    )
      await new Promise((r) => setTimeout(r, 100));
    clearTimeout(kill);
    rmSync(state, { recursive: true, force: true });
  };
  try {
    const until = Date.now() + 60_000;
    for (;;) {
      try {
        if ((await fetch(`${base}/healthz`)).ok) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > until) throw new Error(`wrangler dev did not answer ${base}/healthz within 60 s`);
      await new Promise((r) => setTimeout(r, 250));
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { base, state, stop };
}
