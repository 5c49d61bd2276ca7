/**
 * The one way a unit gets a model client, whatever its run's config looks like. A module describes the
 * model it calls as a `ModelSpec` and this makes the client:
 *
 * - `run`: the run's own model, for configs that carry the model fields at their top (`ModelSettings`:
 *   chain-determinism, rpl). The platform makes that client (`UnitContext.chat`), because the platform
 *   reads its key (the `provider` secret, PROVIDER_SECRET) and its simulator knobs from the config.
 * - `endpoint`: any other OpenAI-compatible endpoint (a judge critic, a reasoning-quality model or its
 *   checker), through the platform's `UnitContext.endpoint` (the one retry policy, counted, stopped by
 *   cancel), with the key the module stored under `secret` when it created the run: the module that
 *   names a secret is the one that reads it.
 * - `simulator`: a `sim:*` model played in process with the module's responders in front of the defaults.
 *
 * Why `run` exists at all: UnitContext (src/runs/lanes/unit-runner.ts) offers `chat(salt)` for the run's own
 * model and nothing for a simulator, so the two other kinds are built here on top of it.
 */
import { createSimClient, defaultResponders, type ChatClient, type SimResponder } from "../../providers/index.ts";
import type { UnitContext } from "./types.ts";

export type SimulatorSpec = {
  kind: "simulator";
  model: string;
  seed: number | string;
  /** Tells apart units that send identical requests (replays); default 0. */
  replay?: number;
  latency_ms?: number;
  /** Responders tried before the simulator's defaults (a critic's verdicts, a reasoner's answers). */
  responders?: SimResponder[];
  /** Only these responders, without the defaults after them (the contradiction checker's). */
  only?: boolean;
};

export type EndpointSpec = {
  kind: "endpoint";
  base_url: string;
  /** The run secret holding the endpoint's key, as the module named it at creation; none for a keyless endpoint. */
  secret: string;
  timeout_s: number;
};

export type ModelSpec = { kind: "run"; salt: number } | EndpointSpec | SimulatorSpec;

/** The simulator a spec describes (also for callers that have no UnitContext, such as the checker's batches). */
export function simulatorClient(spec: SimulatorSpec): ChatClient {
  return createSimClient({
    model: spec.model,
    seed: spec.seed,
    replay: spec.replay,
    latencyMs: spec.latency_ms,
    responders: spec.responders
      ? spec.only
        ? spec.responders
        : [...spec.responders, ...defaultResponders]
      : undefined,
  });
}

/** The client for `spec` in a unit. */
export function unitModel(
  ctx: Pick<UnitContext<unknown>, "chat" | "endpoint" | "secret">,
  spec: ModelSpec,
): ChatClient {
  switch (spec.kind) {
    case "run":
      return ctx.chat(spec.salt);
    case "endpoint":
      return ctx.endpoint({
        baseUrl: spec.base_url,
        apiKey: ctx.secret(spec.secret),
        timeoutMs: spec.timeout_s * 1000,
      });
    case "simulator":
      return simulatorClient(spec);
  }
}
