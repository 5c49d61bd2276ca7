/**
 * judge on the run platform: one unit per (item, critic) call. A unit asks one critic about one
 * item through the engine's `judgeCritic` (request, parsing) and stores the verdict; the aggregate
 * votes per item and measures agreement over the whole batch (src/engines/judge).
 *
 * API decisions beyond the library (README "judge"):
 * - a label outside the run's vocabulary is kept in the verdict but marked with error
 *   "off_vocabulary", so it is counted apart from votes, like ERROR and PARSE_FAIL;
 * - contested items (the human-review queue): agreement_pct or the item's alpha below the threshold,
 *   or fewer than two valid verdicts (no agreement can be measured).
 */
import { aggregateVerdicts, batchAgreement, errorVerdict, judgeCritic, validVotes, type Verdict } from "../engines/judge/index.ts";
import { createSimClient, criticResponder, defaultResponders, type ChatClient, type Usage } from "../providers/index.ts";
import type { PromptRef } from "./judge-prompts.ts";
import type { Evaluator, StoredSample, UnitOutcome } from "./types.ts";

export type JudgeItem = { id: string; query: string; context: Record<string, unknown>; expected: string | null };

export type JudgeCriticConfig = {
  name: string;
  model: string;
  /** The resolved endpoint (preset or provider.base_url); null for a simulator critic. */
  base_url: string | null;
  vendor: string | null;
  temperature: number;
  max_tokens: number;
  timeout_s: number;
  weight: number;
  system_prompt: string;
  prompt_template: string;
  prompt: PromptRef;
  simulator: { bias: { label: string; rate: number } | null; noise: number; latency_ms: number } | null;
};

export type VotingConfig = {
  strategy: "majority" | "unanimous" | "weighted" | "first_disagreement";
  /** Passed to the strategy as its keyword arguments (spec cross-judge.md §4). */
  kwargs: Record<string, unknown>;
};

export type JudgeConfig = {
  items: JudgeItem[];
  critics: JudgeCriticConfig[];
  labels: string[];
  voting: VotingConfig;
  contested_threshold: number;
  seed: number;
};

/** One stored unit: the verdict and what produced it. */
export type JudgeOutput = {
  item_id: string;
  query: string;
  critic: string;
  model: string;
  prompt: PromptRef;
  verdict: Verdict & { prompt: PromptRef };
  usage: Usage | null;
  system_fingerprint: string | null;
};

/** The name of a critic's API key among the run's secrets. */
export const criticSecret = (index: number): string => `critic:${index}`;

export const unitId = (item: number, critic: number): string => `${item}:${critic}`;

function parseUnit(id: string): { item: number; critic: number } {
  const m = /^(\d+):(\d+)$/.exec(id);
  if (!m) throw new Error(`judge: bad unit id '${id}'`);
  return { item: Number(m[1]), critic: Number(m[2]) };
}

/** The variables a critic's template sees: the vocabulary as {labels}, then the item's context (which wins). */
export function templateContext(labels: readonly string[], item: Pick<JudgeItem, "context">): Record<string, unknown> {
  return { labels: labels.join(" | "), ...item.context };
}

type VerdictClass = "valid" | "error" | "parse_fail" | "off_vocabulary";

function classify(v: Verdict): VerdictClass {
  if (v.error === null || v.error === undefined) return "valid";
  if (v.error === "parse_fail") return "parse_fail";
  if (v.error.startsWith("off_vocabulary")) return "off_vocabulary";
  return "error";
}

export const judge: Evaluator<JudgeConfig> = {
  name: "judge",

  plan(config) {
    return config.items.flatMap((_, i) => config.critics.map((_, c) => unitId(i, c)));
  },

  async execute(id, ctx, signal): Promise<UnitOutcome> {
    const { item: i, critic: c } = parseUnit(id);
    const { config } = ctx;
    const item = config.items[i];
    const critic = config.critics[c];
    let usage: Usage | null = null;
    let fingerprint: string | null = null;
    const client = (): ChatClient => {
      if (critic.simulator) {
        const sim = critic.simulator;
        return createSimClient({
          model: critic.model,
          seed: config.seed,
          latencyMs: sim.latency_ms,
          responders: [criticResponder({ critic: critic.name, labels: config.labels, item: item.id, expected: item.expected, bias: sim.bias, noise: sim.noise }), ...defaultResponders],
        });
      }
      return ctx.endpoint({ baseUrl: critic.base_url!, apiKey: ctx.secret(criticSecret(c)), timeoutMs: critic.timeout_s * 1000 });
    };
    const raw = await judgeCritic(
      {
        name: critic.name,
        model: critic.model,
        // The simulator needs no endpoint; the engine only needs a base URL to resolve.
        base_url: critic.base_url ?? "sim://local",
        // Keys come from the run's secrets; a keyless local endpoint gets the openai package's placeholder.
        api_key: ctx.secret(criticSecret(c)) ?? "EMPTY",
        temperature: critic.temperature,
        max_tokens: critic.max_tokens,
        system_prompt: critic.system_prompt,
        prompt_template: critic.prompt_template,
      },
      item.query,
      {
        context: templateContext(config.labels, item),
        signal,
        connect: () => {
          const inner = client();
          return {
            async chat(request, options) {
              const response = await inner.chat(request, options);
              usage = response.usage ?? null;
              fingerprint = response.system_fingerprint ?? null;
              return response;
            },
          };
        },
      },
    );
    const verdict =
      raw.error === null && !config.labels.includes(raw.kind)
        ? { ...raw, error: `off_vocabulary: '${raw.kind}' is not one of ${config.labels.join(", ")}` }
        : raw;
    const output: JudgeOutput = {
      item_id: item.id,
      query: item.query,
      critic: critic.name,
      model: critic.model,
      prompt: critic.prompt,
      verdict: { ...verdict, prompt: critic.prompt },
      usage,
      system_fingerprint: fingerprint,
    };
    return verdict.error === null ? { status: "succeeded", output } : { status: "failed", output, error: verdict.error };
  },

  aggregate(config, samples) {
    return aggregateJudge(config, samples);
  },

  parseOutput: (text) => JSON.parse(text),

  failureOutput(config, id, error): JudgeOutput {
    const { item: i, critic: c } = parseUnit(id);
    const critic = config.critics[c];
    return {
      item_id: config.items[i].id,
      query: config.items[i].query,
      critic: critic.name,
      model: critic.model,
      prompt: critic.prompt,
      verdict: { ...errorVerdict(critic.name, error), prompt: critic.prompt },
      usage: null,
      system_fingerprint: null,
    };
  },

  exportLine(sample) {
    const o = sample.output as JudgeOutput | null;
    if (!o) return null;
    // The original pipeline's per-call JSONL record, plus the prompt and usage.
    return { item_id: o.item_id, critic: o.critic, model: o.model, ...o.verdict, usage: o.usage };
  },
};

export type Counts = { verdicts: number; valid: number; errors: number; parse_failures: number; off_vocabulary: number; missing: number };

export type JudgeItemResult = {
  id: string;
  /** The item's known label from the request, if any. */
  expected: string | null;
  consensus: string;
  disagreement: boolean;
  agreement_pct: number;
  avg_confidence: number;
  /** The library's per-item alpha (1 / ≈0 / null), kept for compatibility. */
  krippendorff_alpha: number | null;
  verdicts: { critic: string; kind: string; confidence: number; error: string | null }[];
  counts: Counts;
  contested: string[];
};

/** Why an item belongs in the human-review queue at `threshold`; empty when it does not. */
export function contestedReasons(item: Pick<JudgeItemResult, "agreement_pct" | "krippendorff_alpha" | "counts">, threshold: number): string[] {
  if (item.counts.valid < 2) return ["fewer_than_two_valid_verdicts"];
  const reasons: string[] = [];
  if (item.agreement_pct < threshold) reasons.push("agreement_below_threshold");
  if (item.krippendorff_alpha !== null && item.krippendorff_alpha < threshold) reasons.push("alpha_below_threshold");
  return reasons;
}

function emptyCounts(): Counts {
  return { verdicts: 0, valid: 0, errors: 0, parse_failures: 0, off_vocabulary: 0, missing: 0 };
}

const COUNT_KEY: Record<VerdictClass, keyof Counts> = { valid: "valid", error: "errors", parse_fail: "parse_failures", off_vocabulary: "off_vocabulary" };

/**
 * An alpha as a person reads it: the original's per-item alpha leaves floating-point noise where the
 * exact value is 0 or 1 (`1.1102230246251565e-16`), so a value within 1e-12 of a whole number is that
 * number (and -0 is 0). The engine keeps the raw value; its parity tests compare it bit for bit.
 */
export function readableAlpha(x: number | null): number | null {
  if (x === null) return null;
  const whole = Math.round(x);
  return Math.abs(x - whole) < 1e-12 ? whole + 0 : x;
}

/** The run's result: per item the panel's consensus and agreement, per batch alpha and critic statistics. */
export function aggregateJudge(config: JudgeConfig, samples: readonly StoredSample[]) {
  const byUnit = new Map(samples.map((s) => [s.unitId, s.output as JudgeOutput | null]));
  const totals = emptyCounts();
  const usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  const matrix: (string | null)[][] = [];
  const consensus: (string | null)[] = [];
  const patterns = { unanimous: 0, majority: 0, no_majority: 0, no_valid: 0 };
  const items: JudgeItemResult[] = config.items.map((item, i) => {
    const counts = emptyCounts();
    const verdicts: Verdict[] = [];
    const row: (string | null)[] = [];
    config.critics.forEach((_, c) => {
      const output = byUnit.get(unitId(i, c));
      counts.verdicts++;
      if (!output) {
        counts.missing++;
        row.push(null);
        return;
      }
      const v = output.verdict;
      counts[COUNT_KEY[classify(v)]]++;
      verdicts.push(v);
      row.push(classify(v) === "valid" ? v.kind : null);
      if (output.usage) {
        usage.prompt_tokens += output.usage.prompt_tokens ?? 0;
        usage.completion_tokens += output.usage.completion_tokens ?? 0;
        usage.total_tokens += output.usage.total_tokens ?? 0;
      }
    });
    for (const k of Object.keys(totals) as (keyof Counts)[]) totals[k] += counts[k];
    const ev = aggregateVerdicts(item.id, verdicts, { voting: config.voting.strategy, votingKwargs: config.voting.kwargs });
    const valid = validVotes(verdicts);
    matrix.push(row);
    consensus.push(valid.length ? ev.consensus : null);
    const top = Math.max(0, ...[...new Set(valid.map((v) => v.kind))].map((k) => valid.filter((v) => v.kind === k).length));
    if (valid.length === 0) patterns.no_valid++;
    else if (top === valid.length) patterns.unanimous++;
    else if (top * 2 > valid.length) patterns.majority++;
    else patterns.no_majority++;
    const result: JudgeItemResult = {
      id: item.id,
      expected: item.expected,
      consensus: ev.consensus,
      disagreement: ev.disagreement,
      agreement_pct: ev.agreement_pct,
      avg_confidence: ev.avg_confidence,
      krippendorff_alpha: readableAlpha(ev.krippendorff_alpha),
      verdicts: verdicts.map((v) => ({ critic: v.critic_id, kind: v.kind, confidence: v.confidence, error: v.error })),
      counts,
      contested: [],
    };
    result.contested = contestedReasons(result, config.contested_threshold);
    return result;
  });
  const criticNames = config.critics.map((c) => c.name);
  const raw = batchAgreement(matrix, criticNames, consensus);
  const agreement = {
    ...raw,
    alpha: { ...raw.alpha, alpha: readableAlpha(raw.alpha.alpha) },
    pairwise: raw.pairwise.map((p) => ({ ...p, alpha: readableAlpha(p.alpha) })),
  };
  const labelDistribution = criticNames.map((critic, c) => {
    const labels: Record<string, number> = {};
    for (const row of matrix) if (row[c] !== null) labels[row[c]!] = (labels[row[c]!] ?? 0) + 1;
    return { critic, labels };
  });
  const known = items.filter((it) => it.expected !== null && it.counts.valid > 0);
  const correct = known.filter((it) => it.consensus === it.expected).length;
  return {
    voting: config.voting.strategy,
    labels: config.labels,
    counts: { items: items.length, ...totals },
    batch: { ...agreement, patterns, label_distribution: labelDistribution },
    contested: { threshold: config.contested_threshold, count: items.filter((it) => it.contested.length > 0).length },
    // Consensus against the items' `expected` labels, over items with at least one valid verdict.
    accuracy: known.length ? { items: known.length, correct, rate: correct / known.length } : null,
    usage,
    items,
  };
}

export type JudgeResult = ReturnType<typeof aggregateJudge>;
