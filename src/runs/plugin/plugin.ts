/**
 * An evaluator module: everything one run evaluator is, in its own folder (DESIGN "Adding an evaluator is
 * adding a folder"). The platform (src/runs) sees it as an `Evaluator`; the generic route
 * (src/routes/evaluator-runs.ts) turns it into `POST /v1/<name>/runs`; the OpenAPI document's `Run` and
 * `Sample` get one variant per module from its schemas.
 */
import type { z } from "@hono/zod-openapi";
import type { Db } from "../../db/client.ts";
import type { RunFieldsBody } from "./run-fields.ts";
import type { Evaluator } from "./types.ts";
import type { Comparer } from "./compare.ts";

/** What a module may use to turn a request into a run. */
export type CreateContext = {
  env: Env;
  db: Db;
  tenantId: string;
  /** The Worker's destination setting (`loopbackAllowed(env)`), for the request's endpoint URLs. */
  allowLoopback: boolean;
};

/** One run a request makes. The generic route adds the evaluator, `concurrency`, `webhook_url` and the idempotency key. */
export type NewRunOf<Config> = {
  /** What the coordinator and units work from (may include large snapshots such as a suite). No secret. */
  config: Config;
  /** What D1 stores and the API returns as the run's `config`. No secret. */
  publicConfig: Record<string, unknown>;
  /** The run's secrets by the names this module reads them by in `execute`; encrypted, never stored in D1. */
  secrets?: Record<string, string>;
  /** How long a dispatched unit may stay silent before it is dispatched again. */
  leaseMs: number;
};

/**
 * What a request becomes: one run, or a group of runs sharing a group id (rpl's A/B of prompt versions,
 * answered as a `run_group`). Each part has a name (unique in the group, part of its idempotency key)
 * and the body its run is compared by on a replay.
 */
export type Creation<Config> = NewRunOf<Config> | { group: { name: string; body: unknown; run: (groupId: string) => NewRunOf<Config> }[] };

/**
 * An evaluator module. `Body` is its request (with the common run fields), `Config` what its units
 * work from, `Result` what its aggregate returns (and its result schema describes).
 */
export interface EvaluatorModule<Body extends RunFieldsBody = RunFieldsBody, Config = unknown, Result = unknown> extends Evaluator<Config, Result> {
  readonly schemas: {
    /** The request body of `POST /v1/<name>/runs`, a named zod-openapi schema (`<Name>RunRequest`). */
    request: z.ZodType<Body, any>;
    /** The run's public config (`Run.config` of this evaluator's runs). */
    config: z.ZodType;
    /** The run's result (`Run.result` once it has ended). */
    result: z.ZodType;
    /** One sample's output (`Sample.output`). */
    output: z.ZodType;
  };
  /** How the run-creating operation is documented. `groups`: it may answer a `run_group` (see Creation). */
  readonly route: { operationId: string; summary: string; description: string; groups?: boolean };
  /**
   * Turns a valid request into its run(s): resolves what the request names (suites, datasets, prompt
   * banks), checks what the schema cannot (throwing ApiError 400s naming fields), names the secrets.
   * Nothing is stored here; the generic route creates the runs. `concurrency` is always set: an omitted
   * one (an adaptive run) arrives as its bound, LIMITS.concurrency.
   */
  create(body: Body & { concurrency: number }, ctx: CreateContext): Promise<Creation<Config>>;
  /** How two of its runs compare (GET /v1/compare); without one, its runs cannot be compared. */
  readonly comparer?: Comparer<any, Result>;
}
