/**
 * The one contract between the platform and an evaluator: an evaluator is an `EvaluatorPlugin`, one
 * object in its own folder (src/evaluators/<name>/index.ts, src/evaluators/README.md), registered by
 * name (src/evaluators/registry.ts). The app mounts its routes (the generic `POST /v1/<name>/runs` of
 * src/routes/evaluator-runs.ts and its own sub-apps), the OpenAPI document's `Run` and `Sample` get one
 * variant per plug-in from its schemas, the coordinator plans and aggregates its runs, and a UnitRunner
 * lane executes its units. The shapes these exchange (a unit's context and outcome, a stored sample)
 * are in types.ts.
 */
import type { OpenAPIHono, z } from "@hono/zod-openapi";
import type { Db } from "../../db/client.ts";
import type { StepCost } from "../../platform/invocation-budget.ts";
import type { RunFieldsBody } from "./run-fields.ts";
import type { Comparer } from "./compare.ts";
import type { AggregateContext, EvaluatorName, FollowUp, StoredSample, UnitContext, UnitOutcome } from "./types.ts";

/** What a plug-in may use to turn a request into a run. */
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
  /** The run's secrets by the names this plug-in reads them by in `execute`; encrypted, never stored in D1. */
  secrets?: Record<string, string>;
  /** How long a dispatched unit may stay silent before it is dispatched again. */
  leaseMs: number;
};

/**
 * What a request becomes: one run, or a group of runs sharing a group id (rpl's A/B of prompt versions,
 * answered as a `run_group`). Each part has a name (unique in the group, part of its idempotency key)
 * and the body its run is compared by on a replay.
 */
export type Creation<Config> =
  | NewRunOf<Config>
  | { group: { name: string; body: unknown; run: (groupId: string) => NewRunOf<Config> }[] };

/**
 * A plug-in's own HTTP routes, each group an OpenAPIHono sub-app built with src/routes/router.ts's
 * `createRouter()`. The platform cannot name the app's Env here (it lives with the routes, above the
 * platform), and `app.route()` accepts a sub-app of any Env, hence `any`.
 */
// biome-ignore lint/suspicious/noExplicitAny: a sub-app of whatever Env and routes it declares (see above).
export type PluginRoutes = OpenAPIHono<any, any, any>;

/**
 * An evaluator plug-in. `Body` is its request (with the common run fields), `Config` what its units
 * work from, `Result` what its aggregate returns (and its result schema describes).
 */
export interface EvaluatorPlugin<Body extends RunFieldsBody = RunFieldsBody, Config = unknown, Result = unknown> {
  /** Its `POST /v1/<name>/runs` path, its routes' prefix, and the `evaluator` of its runs. */
  readonly name: EvaluatorName;

  // ── What the routes need ─────────────────────────────────────────────────────────────────────────
  readonly schemas: {
    /** The request body of `POST /v1/<name>/runs`, a named zod-openapi schema (`<Name>RunRequest`). */
    request: z.ZodType<Body, unknown>;
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
   * Its routes besides `POST /runs`, mounted by the app in the same loop: `evaluator` at `/v1/<name>`
   * (suites, datasets, prompt banks, review queues), `runs` at `/v1/runs` (reports of one of its runs,
   * `/v1/runs/{run_id}/…`). Every path the `runs` group declares must be one no other evaluator
   * declares, since they share the prefix.
   */
  readonly routes?: { evaluator?: PluginRoutes; runs?: PluginRoutes };
  /**
   * Turns a valid request into its run(s): resolves what the request names (suites, datasets, prompt
   * banks), checks what the schema cannot (throwing ApiError 400s naming fields), names the secrets.
   * Nothing is stored here; the generic route creates the runs. `concurrency` is always set: an omitted
   * one (an adaptive run) arrives as its bound, LIMITS.concurrency.
   */
  create(body: Body & { concurrency: number }, ctx: CreateContext): Promise<Creation<Config>>;
  /** How two of its runs compare (GET /v1/compare); without one, its runs cannot be compared. */
  readonly comparer?: Comparer<unknown, Result>;

  // ── What the coordinator needs ──────────────────────────────────────────────────────────────────
  // Units are identified by stable string ids derived from the config, so nothing but the config has
  // to be stored to rebuild a unit.
  /** The ids of every unit of the run, in a stable order. */
  plan(config: Config): string[];
  /**
   * Optional: the part of the config unit `unitId` needs, where a config is large and a unit needs
   * little of it (reasoning-quality: one item of thousands). A lane is handed this for each unit
   * instead of the whole config; `execute` gets it as `ctx.config`. Without it, lanes get the config.
   */
  unitConfig?(config: Config, unitId: string): Config;
  /**
   * The run's result from its samples (which may be fewer than planned when a run is canceled), in the
   * order they were recorded. `samples` is a cursor over the coordinator's storage, read page by page:
   * a run may have tens of thousands of samples and a Durable Object has 128 MB, so an aggregate keeps
   * per sample only the few numbers or labels it needs, never the outputs. It may be iterated more
   * than once (each pass reads the storage again); an array works as well (tests, reports).
   */
  aggregate(config: Config, samples: Iterable<StoredSample>, ctx?: AggregateContext): Result | Promise<Result>;
  /**
   * Optional: what follows a succeeded run (rpl's auto preset escalating to its next stage). Returns
   * the result to store for this run and, if another run should follow, its config and the public
   * part of it; null leaves the run as it is.
   */
  followUp?(config: Config, result: Result): Promise<FollowUp | null>;
  /** The output stored for a unit that gave up (attempts exhausted), so its sample has the usual shape. */
  failureOutput(config: Config, unitId: string, error: string): unknown;

  // ── What the lanes need ─────────────────────────────────────────────────────────────────────────
  /**
   * The most one step of unit `unitId` may need (`config` as `execute` gets it): for a unit of one
   * call, that call with its retries; for a unit of many steps, its largest step. A lane starts the unit
   * only while its invocation has that much left, and hands over to a fresh one otherwise. Every
   * built-in evaluator says; a plug-in that does not is budgeted as DEFAULT_UNIT_COST (src/runs/lanes/unit-runner.ts).
   */
  unitCost?(config: Config, unitId: string): StepCost;
  /** Runs one unit. Throwing means "retry this unit"; an outcome (even `failed`) is final. */
  execute(unitId: string, ctx: UnitContext<Config>, signal: AbortSignal): Promise<UnitOutcome>;

  // ── What the stored results need (samples, exports, the result as the API shows it) ──────────────
  /**
   * Optional: the result as the API shows it, where that differs from the stored one (chain-determinism
   * writes the harness's float fields with float lexemes, `0.0`, as the harness's summary does).
   */
  wireResult?(result: Result): unknown;
  /** Reads a stored output back from its exact JSON text. */
  parseOutput(text: string): unknown;
  /** The NDJSON line of a sample (the original tool's per-unit format). */
  exportLine(sample: StoredSample): unknown;
}
