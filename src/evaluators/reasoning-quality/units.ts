// reasoning-quality's units: one generation each (model × item × call); the config they work from and what each stores.
import {
  planItem,
  splitSteps,
  stepPairs,
  storedTrace,
  type EvalItem,
  type ItemPlan,
  type PresetVersion,
} from "../../engines/reasoning-quality/index.ts";
import { reasonerResponder } from "../../providers/index.ts";
import { unitModel, type ModelSpec } from "../../runs/plugin/model-client.ts";
import type { UnitContext, UnitOutcome } from "../../runs/plugin/types.ts";
import { callCost, largerStep, type StepCost } from "../../platform/invocation-budget.ts";
import {
  CHECKER_PARALLEL,
  checkerClient,
  LS_SECRET,
  stepCheck,
  type CheckState,
  type LsModelConfig,
  type RqLs,
  type RqSs,
} from "./backends.ts";
import type { RqOutput, RqPublicConfig } from "./schemas.ts";

/** A model as the units call it, and as `Run.config` shows it; `name` is unique in the run (the result's `model`). */
export type RqModel = RqPublicConfig["models"][number];

/**
 * What the run's coordinator and units work from (every item): kept by the platform, never shown.
 * `Run.config` shows `RqPublicConfig` (schemas.ts).
 */
export type RqRunConfig = {
  models: RqModel[];
  items: (EvalItem & { id: string })[];
  /** Ids of generated synthetic items whose free-text gold is our wording (see goldInOurWords); absent in older runs. */
  own_wording_golds?: string[];
  metrics: { consistency_runs: number; stability_runs: number; robustness_perturbations: number };
  matcher: "canonical" | "legacy7";
  ls: RqLs;
  ss: RqSs;
  preset: PresetVersion;
  /** Extra strategies: name → weights over the six metrics (auto-normalised). */
  custom_strategies: Record<string, Record<string, number>>;
  seed: number;
  /** Only in what a lane is handed for one unit (see unitConfig): that unit's item; `items` is then empty. */
  unit_item?: { index: number; item: EvalItem & { id: string } };
};

/** The name of model m's API key among the run's secrets. */
export const modelSecret = (m: number): string => `model:${m}`;

// Call keys: "p" the primary, "r<run>" a further run (2..K), "x<slot>" a perturbation slot.
export const callKeys = (plan: ItemPlan): { key: string; prompt: string }[] => [
  { key: "p", prompt: plan.primary.prompt },
  ...plan.extras.map((c) => ({ key: `r${c.run}`, prompt: c.prompt })),
  ...plan.perturbations.flatMap((c) => (c ? [{ key: `x${c.slot}`, prompt: c.prompt }] : [])),
];

const plans = new WeakMap<RqRunConfig, ItemPlan[]>();
export function plansOf(config: RqRunConfig): ItemPlan[] {
  let p = plans.get(config);
  if (!p) plans.set(config, (p = config.items.map((item, i) => planItem(item, i, { metrics: config.metrics }))));
  return p;
}

/** Item i's plan: from the unit's own item where the config is a unit's (unitConfig), else from the run's items. */
function planOf(config: RqRunConfig, i: number): ItemPlan {
  const own = config.unit_item;
  return own?.index === i ? planItem(own.item, i, { metrics: config.metrics }) : plansOf(config)[i];
}

function itemOf(config: RqRunConfig, i: number): EvalItem {
  const own = config.unit_item;
  return own?.index === i ? own.item : config.items[i];
}

/**
 * What a lane is handed for unit `id`: the config with that unit's item alone. The items are nearly
 * all of a config (10,000 are about 3.3 MB) and a unit reads one, so lanes neither receive nor hold them.
 */
export function unitConfig(config: RqRunConfig, id: string): RqRunConfig {
  const { i } = parseUnit(id);
  const { own_wording_golds: _golds, ...rest } = config;
  return { ...rest, items: [], unit_item: { index: i, item: config.items[i] } };
}

export function parseUnit(id: string): { m: number; i: number; call: string } {
  const match = /^(\d+):(\d+):(p|r\d+|x\d+)$/.exec(id);
  if (!match) throw new Error(`reasoning-quality: bad unit id '${id}'`);
  return { m: Number(match[1]), i: Number(match[2]), call: match[3] };
}

/** Every generation is a unit: per model and item the primary run, runs 2..K and one call per usable perturbation. */
export function plan(config: RqRunConfig): string[] {
  const plan = plansOf(config);
  return config.models.flatMap((_, m) => plan.flatMap((p, i) => callKeys(p).map((c) => `${m}:${i}:${c.key}`)));
}

/**
 * The model of `m`'s call `call` on item `i`: a simulator that plays a reasoner (its answers depend on the
 * call, so runs and perturbations vary), or its endpoint with the key stored as `modelSecret(m)`.
 */
function modelSpec(config: RqRunConfig, m: number, i: number, call: string): ModelSpec {
  const model = config.models[m];
  if (!model.simulator)
    return { kind: "endpoint", base_url: model.base_url!, secret: modelSecret(m), timeout_s: model.timeout_s };
  const index = call === "p" ? 0 : 1 + callKeys(planOf(config, i)).findIndex((c) => c.key === call);
  return {
    kind: "simulator",
    model: model.model,
    seed: config.seed,
    latency_ms: model.simulator.latency_ms,
    responders: [
      reasonerResponder({
        model: model.name,
        item: String(i),
        gold: itemOf(config, i).answer,
        call: index,
        ...model.simulator,
      }),
    ],
  };
}

/**
 * The most one step of unit `id` may need: its call; a primary unit under the LS `model` backend also
 * takes rounds of CHECKER_PARALLEL checker calls, each a step of its own.
 */
export function unitCost(config: RqRunConfig, id: string): StepCost {
  const { m, call } = parseUnit(id);
  const generation = callCost(config.models[m].timeout_s);
  return call === "p" && config.ls.method === "model"
    ? largerStep(generation, checkerRoundCost(config.ls))
    : generation;
}

/** A round of checker calls: CHECKER_PARALLEL calls at once, so one call's wall time and each call's subrequests. */
export function checkerRoundCost(ls: LsModelConfig): StepCost {
  return callCost(ls.timeout_s, CHECKER_PARALLEL);
}

/** Where a primary unit that handed over between checker rounds stopped: its generation and the check so far. */
type Saved = { output: RqOutput; check: CheckState };

/**
 * One generation; the primary one, under the LS `model` backend, also asks the checker about its trace,
 * a round of calls at a time. On the platform it asks before each round whether the round's worst
 * case still fits in the lane's invocation; if not, it saves its generation and the labels so far and
 * stops, and the unit's next run continues at the next round, with the sample an unbroken run writes.
 */
export async function execute(id: string, ctx: UnitContext<RqRunConfig>, signal: AbortSignal): Promise<UnitOutcome> {
  const { m, i, call } = parseUnit(id);
  const { config, steps } = ctx;
  const model = config.models[m];
  const base = { model: model.name, item: i, call };
  const failed = (err: unknown): UnitOutcome => {
    const error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    return {
      status: "failed",
      output: { ...base, ok: false, text: null, output_tokens: null, usage: null, error } satisfies RqOutput,
      error,
    };
  };
  const ls = config.ls;
  const checked = call === "p" && ls.method === "model";
  const saved = steps?.saved ? (JSON.parse(steps.saved) as Saved) : null;
  let output: RqOutput;
  if (saved) output = saved.output;
  else {
    // Before checker rounds, the generation is the unit's first step: asked for, so that the rounds
    // after it are asked for against what is left (the first step of an invocation always runs).
    if (checked) steps?.fits(callCost(model.timeout_s));
    const prompt = callKeys(planOf(config, i)).find((c) => c.key === call)!.prompt;
    const client = unitModel(ctx, modelSpec(config, m, i, call));
    try {
      // The raw question as one user message, no system prompt (spec §1.1).
      const res = await client.chat(
        {
          model: model.model,
          messages: [{ role: "user", content: prompt }],
          temperature: model.temperature,
          max_tokens: model.max_tokens,
        },
        { signal },
      );
      const text = res.choices?.[0]?.message?.content;
      if (typeof text !== "string") throw new Error("the response has no choices[0].message.content");
      output = {
        ...base,
        ok: true,
        text,
        output_tokens: res.usage?.completion_tokens ?? null,
        usage: res.usage ?? null,
        error: null,
      };
    } catch (err) {
      return failed(err);
    }
  }
  if (checked) {
    // The same steps the aggregate's record will hold (buildRecord's default rule).
    const pairs = stepPairs(storedTrace(splitSteps(output.text!, "legacy_dot")));
    const endpoint = () =>
      unitModel(ctx, { kind: "endpoint", base_url: ls.base_url!, secret: LS_SECRET, timeout_s: ls.timeout_s });
    if (pairs.length > 0) {
      const round = checkerRoundCost(ls);
      let done;
      try {
        done = await stepCheck(pairs, ls, checkerClient(ls, config.seed, endpoint), signal, {
          from: saved?.check,
          beforeRound: steps && (() => steps.fits(round)),
        });
      } catch (err) {
        return failed(err);
      }
      // Outside the try: pausing ends this run of the unit by throwing, which is not its failure.
      if ("paused" in done) return steps!.pause(JSON.stringify({ output, check: done.paused } satisfies Saved));
      output.nli = done;
    }
  }
  return { status: "succeeded", output };
}

/** The output of a unit that gave up: a failed call, as the record's failure policy expects. */
export function failureOutput(config: RqRunConfig, id: string, error: string): RqOutput {
  const { m, i, call } = parseUnit(id);
  return {
    model: config.models[m].name,
    item: i,
    call,
    ok: false,
    text: null,
    output_tokens: null,
    usage: null,
    error,
  };
}
