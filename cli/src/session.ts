// Where the CLI talks to and as whom: --server / ASSAY_URL and ASSAY_API_KEY, and the SDK client.
import type { Command } from "commander";
import { createClient, type Client } from "@assay/sdk/client";
import { CliError, EXIT, problemLine } from "./errors.ts";

/** `npm start` serves here, and seeds this key for tenant `dev` (never valid anywhere else). */
export const LOCAL_SERVER = "http://127.0.0.1:8787";
export const LOCAL_DEV_KEY = "assay_sk_local_dev_key";

export type GlobalOptions = { server?: string; json?: boolean };

export type Session = {
  client: Client;
  server: string;
  /** --json: machine-readable output on stdout, no progress bar, no tables. */
  json: boolean;
};

export function isLocalDefault(server: string): boolean {
  return server.replace(/\/+$/, "") === LOCAL_SERVER;
}

/** The server from --server / ASSAY_URL (default: the local dev server), checked to be an http(s) URL. */
export function serverFor(options: GlobalOptions, env: NodeJS.ProcessEnv = process.env): string {
  const server = (options.server ?? env.ASSAY_URL ?? LOCAL_SERVER).replace(/\/+$/, "");
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new CliError(`--server / ASSAY_URL is not a URL: ${server}`, EXIT.usage);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new CliError(`--server / ASSAY_URL must be http(s): ${server}`, EXIT.usage);
  return server;
}

export function sessionFor(options: GlobalOptions, env: NodeJS.ProcessEnv = process.env): Session {
  const server = serverFor(options, env);
  const key = env.ASSAY_API_KEY || (isLocalDefault(server) ? LOCAL_DEV_KEY : undefined);
  if (!key) throw new CliError(`set ASSAY_API_KEY to an API key of ${server}`, EXIT.usage);
  return { client: createClient({ baseUrl: server, auth: () => key }), server, json: Boolean(options.json) };
}

/** The session of a command, from the global options wherever they were given. */
export function session(command: Command): Session {
  return sessionFor(command.optsWithGlobals<GlobalOptions>());
}

type SdkResult<T> = { data?: T; error?: unknown; response?: Response };

/**
 * Awaits an SDK call and returns its data. An API error becomes its problem+json in one line; a
 * server that cannot be reached is named with the cause.
 */
export async function call<T>(s: Session, request: Promise<SdkResult<T>>): Promise<T> {
  let result: SdkResult<T>;
  try {
    result = await request;
  } catch (err) {
    throw unreachable(s, err);
  }
  // The SDK hands back a failed fetch (no response at all) as its error.
  if (!result.response && result.error instanceof Error) throw unreachable(s, result.error);
  if (result.error !== undefined || !result.response?.ok) {
    throw new CliError(problemLine(result.error, result.response?.status), EXIT.couldNotRun, result.response?.status);
  }
  return result.data as T;
}

export function unreachable(s: Session, err: unknown): CliError {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  const why = cause?.code ?? cause?.message ?? (err as Error)?.message ?? String(err);
  const hint = isLocalDefault(s.server) ? " (is `npm start` running?)" : "";
  return new CliError(`cannot reach ${s.server}: ${why}${hint}`);
}
