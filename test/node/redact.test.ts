// Issue 14, item 5 ("Keys kept where they should not be"): a key echoed JSON-escaped, split or shorter
// than 8 characters was stored in run.error, the samples and the local databases. Here: the provider's
// scrub (errors, through the real `openai` client against the fake endpoint), the evaluators' own
// execute() on those errors, and redactOutcome / redactingCache on what successful answers store.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fragmentLength, REDACTED } from "../../src/engines/redact/index.ts";
import { seqKey } from "../../src/engines/chain-determinism/index.ts";
import { pyStrRepr, type PyPlain } from "../../src/engines/python/index.ts";
import {
  chainDeterminism,
  DEFAULT_SUITE,
  type ChainDeterminismRunConfig,
} from "../../src/evaluators/chain-determinism/index.ts";
import { judge, criticSecret, type JudgeRunConfig } from "../../src/evaluators/judge/index.ts";
import { reasoningQuality, modelSecret, type RqRunConfig } from "../../src/evaluators/reasoning-quality/index.ts";
import { planRpl, rpl, type RplRunConfig, type RplOutput } from "../../src/evaluators/rpl/index.ts";
import { DEFAULT_RPL_PROMPT, promptBank } from "../../src/evaluators/rpl/prompts.ts";
import type { SampleCache, UnitContext, UnitOutcome } from "../../src/runs/plugin/types.ts";
import { createOpenAIClient, PROVIDER_SECRET, ProviderError, scrubSecrets } from "../../src/providers/index.ts";
import { redactingCache, redactOutcome, runRedactor } from "../../src/runs/results/redact.ts";
import { registerScenario, startFakeOpenAI, type FakeOpenAI, type FaultRule } from "../support/fake-openai.ts";

// Printable ASCII without spaces (what the API accepts), with a quote, a backslash and an apostrophe:
// JSON, Python's repr and URLs each write it differently.
const KEY = `sk-proj-"Qx\\7f'Zr/Lm-0a1b2c3d4e5f60718293a4b5`;
const CRITIC_KEY = "critic-9f8e7d6c5b4a3928-1706f5e4d3c2b1a0";
const SECRETS = { [PROVIDER_SECRET]: KEY, [criticSecret(0)]: CRITIC_KEY };

/**
 * True if `text` holds any part of `key` that counts as the key (fragmentLength characters), as is or
 * in a form a JSON, Python or URL writer gives it, once or twice over. Independent of the redactor.
 */
function leaks(text: string, key: string): boolean {
  const n = fragmentLength(key.length);
  const json = (s: string) => JSON.stringify(s).slice(1, -1);
  for (let o = 0; o + n <= key.length; o++) {
    const part = key.slice(o, o + n);
    const forms = [
      part,
      json(part),
      json(json(part)),
      encodeURIComponent(part),
      pyStrRepr(part).slice(1, -1),
      pyStrRepr(pyStrRepr(part)).slice(1, -1),
    ];
    if (forms.some((f) => text.includes(f))) return true;
  }
  return false;
}

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(() => fake.close());

let n = 0;
async function scenario(s: {
  text?: string;
  faults?: FaultRule[];
  agent?: { calls?: number; answer?: string };
}): Promise<string> {
  const id = `redact-${n++}`;
  await registerScenario(fake.url, { id, echo_key: true, ...s });
  return id;
}

const noWait = { maxRetries: 0, sleep: async () => {} };
const client = (apiKey: string) =>
  createOpenAIClient({ allowLoopback: true, baseURL: fake.url, apiKey, timeoutMs: 5000, ...noWait });

/** The ways a leaky endpoint echoes the key it was sent in an error body. */
const ERROR_ECHOES: [string, FaultRule["respond"]][] = [
  [
    "in the message (JSON-escaped on the wire, Python repr in the message)",
    { status: 401, body: { error: { message: "Incorrect API key provided: {{key}}", code: "invalid_api_key" } } },
  ],
  ["as a JSON string inside the message", { status: 400, body: { error: { message: '{"api_key": "{{key_json}}"}' } } }],
  ["URL-encoded", { status: 403, raw: '{"error": {"message": "denied: /v1/chat?key={{key_url}}"}}' }],
  ["in halves, apart", { status: 401, body: { error: { message: "key {{key_head}} …", param: "… {{key_tail}}" } } }],
  ["in halves, broken by a line", { status: 500, raw: "upstream said: {{key_head}}\n{{key_tail}}" }],
  ["in a 200 that is not JSON", { status: 200, raw: "<html>proxy error for {{key}}</html>" }],
];

describe("scrubSecrets: a provider error never carries the key", () => {
  it.each(ERROR_ECHOES)("%s", async (_, respond) => {
    const id = await scenario({ faults: [{ respond }] });
    const err = await client(KEY)
      .chat({ model: id, messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    const message = (err as ProviderError).message;
    expect(message).toContain(REDACTED);
    expect(leaks(message, KEY)).toBe(false);
  });

  it("a key shorter than 8 characters is removed where it stands alone", async () => {
    const id = await scenario({
      faults: [
        {
          respond: {
            status: 401,
            body: { error: { message: "Incorrect API key provided: {{key}}. Keys look like abc12x." } },
          },
        },
      ],
    });
    const err = (await client("abc12")
      .chat({ model: id, messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e)) as ProviderError;
    expect(err.message).toBe(
      `Error code: 401 - {'error': {'message': 'Incorrect API key provided: ${REDACTED}. Keys look like abc12x.'}}`,
    );
  });

  it("removes every key it is given, and keeps its patterns", () => {
    expect(scrubSecrets(`a ${KEY} b ${CRITIC_KEY} c Bearer tok_123`, [KEY, CRITIC_KEY])).toBe(
      `a ${REDACTED} b ${REDACTED} c Bearer [REDACTED]`,
    );
  });
});

// ---- the evaluators' own code ----

const signal = new AbortController().signal;

function memoryCache(): SampleCache & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return {
    map,
    get: async (k) => (map.has(k) ? JSON.parse(map.get(k)!) : null),
    put: async (k, v) => void map.set(k, JSON.stringify(v)),
  };
}

function ctxOf<C>(config: C, cache: SampleCache = memoryCache()): UnitContext<C> {
  return {
    config,
    cache,
    chat: () => client(KEY),
    endpoint: ({ apiKey }) => client(apiKey ?? ""),
    secret: (name) => (SECRETS as Record<string, string>)[name],
  };
}

const cdConfig = (model: string): ChainDeterminismRunConfig => ({
  model,
  provider: { base_url: fake.url },
  timeout_s: 5,
  seed: null,
  simulator: null,
  suite: { id: "default", name: "default", sha256: "x" },
  suite_data: DEFAULT_SUITE,
  n_queries: 1,
  n_replays: 2,
  temperature: 0,
  max_turns: 5,
  max_tokens: 64,
  min_success: 1,
});

const rplConfig = async (model: string): Promise<RplRunConfig> => {
  const bank = promptBank(DEFAULT_RPL_PROMPT);
  const claim = "Tariffs raise consumer prices.";
  return {
    model,
    provider: { base_url: fake.url },
    timeout_s: 5,
    seed: null,
    simulator: null,
    claim,
    prompt_version: DEFAULT_RPL_PROMPT,
    prompt: bank,
    K: 1,
    R: 1,
    T: 1,
    B: 100,
    bootstrap_seed: null,
    max_output_tokens: 64,
    no_cache: false,
    plan: await planRpl({ claim, model, promptBank: bank, K: 1, R: 1, T: 1 }),
  };
};

const judgeConfig = (model: string): JudgeRunConfig => ({
  items: [{ id: "i0", query: "Is the sky blue?", context: {}, expected: null }],
  critics: [
    {
      name: "c0",
      model,
      base_url: fake.url,
      vendor: null,
      temperature: 0,
      max_tokens: 64,
      timeout_s: 5,
      weight: 1,
      system_prompt: "Judge.",
      prompt_template: "{query} Answer with one of {labels}.",
      prompt: { name: "inline", version: null, sha256: "x" },
      simulator: null,
    },
  ],
  labels: ["KEEP", "REJECT"],
  voting: { strategy: "majority", kwargs: {} },
  contested_threshold: 0.4,
  seed: 1,
});

const rqConfig = (model: string): RqRunConfig => ({
  models: [{ name: "m0", model, base_url: fake.url, temperature: 0, max_tokens: 64, timeout_s: 5, simulator: null }],
  items: [{ id: "q0", question: "What is 2 + 2?", answer: "4" }],
  metrics: { consistency_runs: 1, stability_runs: 1, robustness_perturbations: 0 },
  matcher: "canonical",
  ls: { method: "lexical" },
  ss: { method: "jaccard" },
  preset: "paper-v8",
  custom_strategies: {},
  seed: 1,
});

// The rq model's key is the run's "model:0" secret; this test gives it the provider key's value.
const rqCtx = (config: RqRunConfig) => ({
  ...ctxOf(config),
  secret: (name: string) => (name === modelSecret(0) ? KEY : undefined),
});
const judgeCtx = (config: JudgeRunConfig) => ({ ...ctxOf(config), endpoint: () => client(CRITIC_KEY) });

/** Each evaluator's first unit against `model`. */
const UNITS: [string, (model: string) => Promise<UnitOutcome>][] = [
  ["chain-determinism", async (model) => chainDeterminism.execute("q0.r0", ctxOf(cdConfig(model)), signal)],
  ["rpl", async (model) => rpl.execute("s0.r0", ctxOf(await rplConfig(model)), signal)],
  ["judge", async (model) => judge.execute("0:0", judgeCtx(judgeConfig(model)), signal)],
  ["reasoning-quality", async (model) => reasoningQuality.execute("0:0:p", rqCtx(rqConfig(model)), signal)],
];

describe("execute: a model call's error is stored without the key", () => {
  // Without the platform's redaction: scrubSecrets is what stands between the echo and the sample.
  it.each(UNITS)("%s", async (_, execute) => {
    const id = await scenario({
      faults: [
        { respond: { status: 401, body: { error: { message: "bad key {{key}} ({{key_head}} / {{key_tail}})" } } } },
      ],
    });
    const outcome = await execute(id);
    expect(outcome.status).toBe("failed");
    const stored = JSON.stringify(outcome);
    expect(stored).toContain(REDACTED);
    expect(leaks(stored, KEY)).toBe(false);
    expect(leaks(stored, CRITIC_KEY)).toBe(false);
  });
});

describe("redactOutcome: a successful answer that repeats the key is stored without it", () => {
  it("chain-determinism: rationale and tool arguments, with the sequence keys of two replays still equal", async () => {
    const id = await scenario({
      faults: [
        { on: { turn: 0 }, respond: { arguments: '{"term": "{{key_json}}", "n": 1.0}' } },
        { on: { turn: 1 }, respond: { content: "Done. I was called with {{key}} and {{key_head}}\n{{key_tail}}." } },
      ],
    });
    const outcomes = [
      await chainDeterminism.execute("q0.r0", ctxOf(cdConfig(id)), signal),
      await chainDeterminism.execute("q0.r1", ctxOf(cdConfig(id)), signal),
    ];
    expect(leaks(JSON.stringify(outcomes[0]), KEY)).toBe(true); // what the evaluator hands over
    const redacted = outcomes.map((o) => redactOutcome(o, SECRETS));
    for (const [i, o] of redacted.entries()) {
      expect(o.status).toBe(outcomes[i].status);
      expect(leaks(JSON.stringify(o), KEY)).toBe(false);
    }
    const row = (o: UnitOutcome) =>
      (o.output as { row: { rationale: string; tool_call_sequence: { args: PyPlain }[] } }).row;
    expect(row(redacted[0]).rationale).toBe(`Done. I was called with ${REDACTED} and ${REDACTED}\n${REDACTED}.`);
    // `1.0` stays a float lexeme, and both replays keep one sequence: divergence is unchanged.
    expect(JSON.stringify(row(redacted[0]).tool_call_sequence[0].args)).toBe(`{"term":"${REDACTED}","n":1.0}`);
    const key = (o: UnitOutcome) => seqKey(row(o).tool_call_sequence);
    expect(key(redacted[0])).toBe(key(redacted[1]));
  });

  it("rpl: the unparsable reply's text, in the sample and in the tenant's cache; prob_true of a valid one is kept", async () => {
    const bad = await scenario({ text: "I cannot say. ({{key}})" });
    const cache = memoryCache();
    const secrets = runRedactor(SECRETS);
    const outcome = redactOutcome(
      await rpl.execute("s0.r0", ctxOf(await rplConfig(bad), redactingCache(cache, secrets)), signal),
      secrets,
    );
    expect((outcome.output as RplOutput).response_text).toBe(`I cannot say. (${REDACTED})`);
    expect(leaks(JSON.stringify(outcome), KEY)).toBe(false);
    expect(leaks([...cache.map.values()].join("\n"), KEY)).toBe(false);
    const good = await scenario({ text: '{"prob_true": 0.7, "note": "{{key_json}}"}' });
    const valid = redactOutcome(await rpl.execute("s0.r0", ctxOf(await rplConfig(good)), signal), SECRETS);
    expect(valid.output).toMatchObject({ prob_true: 0.7, json_valid: true, raw: { prob_true: 0.7, note: REDACTED } });
  });

  it("judge: reasoning and raw response; the label and confidence are kept", async () => {
    const id = await scenario({ text: '{"kind": "KEEP", "confidence": 0.9, "reasoning": "key {{key_json}}"}' });
    const outcome = redactOutcome(
      await judge.execute("0:0", { ...judgeCtx(judgeConfig(id)), endpoint: () => client(CRITIC_KEY) }, signal),
      SECRETS,
    );
    expect(outcome.status).toBe("succeeded");
    expect(outcome.output).toMatchObject({ verdict: { kind: "KEEP", confidence: 0.9, reasoning: `key ${REDACTED}` } });
    expect(leaks(JSON.stringify(outcome), CRITIC_KEY)).toBe(false);
  });

  it("reasoning-quality: the answer's text", async () => {
    const id = await scenario({ text: "Step 1: my key is {{key}}. Step 2: 2 + 2 = 4. Answer: 4" });
    const outcome = redactOutcome(await reasoningQuality.execute("0:0:p", rqCtx(rqConfig(id)), signal), SECRETS);
    expect(outcome.output).toMatchObject({
      ok: true,
      text: `Step 1: my key is ${REDACTED}. Step 2: 2 + 2 = 4. Answer: 4`,
    });
  });

  it("leaves an outcome without secrets as it is", () => {
    const outcome: UnitOutcome = { status: "failed", output: { a: 1 }, error: "e" };
    expect(redactOutcome(outcome, {})).toBe(outcome);
  });
});
