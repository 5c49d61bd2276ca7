// Runs whose start is interrupted, for the tests of recovery and of call counting (issue 14): a start
// whose Queue messages are lost (startWithLostDispatch), or whose coordinator crashes (startCrashing).
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import type { UnitMessage } from "../../src/runs/lanes/messages.ts";
import type { RunCoordinator } from "../../src/runs/coordinator/run-coordinator.ts";
import { openDb } from "../../src/db/client.ts";
import { insertRun } from "../../src/db/runs.ts";
import { newId } from "../../src/ids.ts";
import { encryptSecret } from "../../src/secrets.ts";
import { PROVIDER_SECRET, type ModelSettings } from "../../src/providers/index.ts";
import {
  chainDeterminism,
  DEFAULT_SUITE,
  type ChainDeterminismRunConfig,
} from "../../src/evaluators/chain-determinism/index.ts";

/** A lease no test waits out: a run that ends was recovered without it. */
export const LEASE_MS = 10 * 60_000;

type RunShape = { nReplays: number; concurrency: number };

/**
 * A chain-determinism run on `model` at the fake endpoint, stored as createRun stores one, and
 * started by calling its coordinator's `start` inside the object with `bindings(state)` in place of
 * the real ones for that call only (the coordinator reads its bindings from `env` when it uses them).
 * Returns the run's id and what `start` threw, if anything.
 */
async function startWith(
  tenantId: string,
  model: string,
  { nReplays, concurrency }: RunShape,
  bindings: (state: DurableObjectState) => Partial<Env>,
): Promise<{ runId: string; thrown: unknown }> {
  const settings: ModelSettings = {
    model,
    provider: { base_url: env.FAKE_OPENAI_URL },
    timeout_s: 60,
    seed: null,
    simulator: null,
  };
  const publicConfig = {
    ...settings,
    suite: { id: "default", name: "assay default", sha256: "" },
    n_queries: 1,
    n_replays: nReplays,
    temperature: 0,
    concurrency,
    max_turns: 10,
    max_tokens: 1024,
    min_success: 2,
  };
  const config: ChainDeterminismRunConfig = { ...publicConfig, suite_data: DEFAULT_SUITE };
  const runId = newId("run");
  const unitIds = chainDeterminism.plan(config);
  await insertRun(openDb(env.DB), {
    id: runId,
    tenantId,
    evaluator: "chain-determinism",
    status: "queued",
    config: publicConfig,
    total: unitIds.length,
    createdAt: new Date(),
  });
  const secretEnc = await encryptSecret(env.SECRETS_KEY, JSON.stringify({ [PROVIDER_SECRET]: "sk-crash-test-0000" }));
  let thrown: unknown = null;
  await runInDurableObject(env.RUNS.get(env.RUNS.idFromName(runId)), async (instance: RunCoordinator, state) => {
    const self = instance as unknown as { env: Env };
    const real = self.env;
    const fake = bindings(state);
    self.env = new Proxy(real, { get: (target, p) => (p in fake ? fake[p as keyof Env] : Reflect.get(target, p)) });
    try {
      await instance.start({
        runId,
        tenantId,
        evaluator: "chain-determinism",
        config,
        unitIds,
        concurrency,
        leaseMs: LEASE_MS,
        secretEnc,
      });
    } catch (err) {
      thrown = err;
    } finally {
      self.env = real;
    }
  }).catch((err: unknown) => (thrown ??= err));
  return { runId, thrown };
}

/**
 * A run whose coordinator's first dispatch never reaches the Queue: its messages are kept here
 * instead, as a server killed right after the 202 loses what its in-memory local queue held (in
 * production, a failed `sendBatch`). Only that dispatch loses its messages; later ones go through.
 */
export async function startWithLostDispatch(
  tenantId: string,
  model: string,
  shape: RunShape,
): Promise<{ runId: string; lost: UnitMessage[] }> {
  const lost: UnitMessage[] = [];
  const lossyQueue = {
    send: async (body: UnitMessage) => void lost.push(body),
    sendBatch: async (messages: Iterable<{ body: UnitMessage }>) => void lost.push(...[...messages].map((m) => m.body)),
  };
  const { runId, thrown } = await startWith(tenantId, model, shape, () => ({
    UNIT_QUEUE: lossyQueue as unknown as Env["UNIT_QUEUE"],
  }));
  if (thrown) throw thrown;
  return { runId, lost };
}

/**
 * A run whose coordinator crashes (state.abort) during its `start`, while it waits on its first call
 * through `binding`: `DB` is its write of the run's `running` status to D1, `UNIT_QUEUE` its first
 * dispatch. As in production, where the output gate holds a request until the storage writes before
 * it are durable, the crash comes once they are (`storage.sync()`), so it loses only memory.
 */
export async function startCrashing(
  tenantId: string,
  model: string,
  shape: RunShape,
  binding: "DB" | "UNIT_QUEUE",
): Promise<string> {
  const { runId, thrown } = await startWith(tenantId, model, shape, (state) => {
    const crash = async (): Promise<never> => {
      await state.storage.sync();
      state.abort(`crashed by the test at its first use of ${binding}`);
      throw new Error("abort() returned");
    };
    // D1 through drizzle: prepare(sql).bind(...).run()/all()/raw(), or batch([...]); a Queue: sendBatch/send.
    const statement = { bind: () => statement, run: crash, all: crash, raw: crash, first: crash };
    const fake = binding === "DB" ? { prepare: () => statement, batch: crash } : { send: crash, sendBatch: crash };
    return { [binding]: fake as unknown as Env[typeof binding] };
  });
  if (!String(thrown).includes("crashed by the test"))
    throw new Error(`the start did not crash as planned: ${String(thrown)}`);
  return runId;
}
