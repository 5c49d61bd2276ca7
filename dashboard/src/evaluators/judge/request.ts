// The judge "New run" form's state and the request built from it: pure functions, no DOM, so the node
// tests can check that the form left as it opens asks for exactly what the API does by default.
import type { JudgeRunRequest } from "@assay/sdk";
import {
  FormProblem,
  isSimulated,
  list,
  modelFields,
  num,
  put,
  simulatorChoice,
  type ModelChoice,
} from "../../components/request.ts";

export type CriticRow = {
  name: string;
  model: ModelChoice;
  /** Simulator only: the probability of a random label. */
  noise: string;
  /** `bank`: `prompt` ("name@version", "" for the API's default); `own`: system_prompt + prompt_template. */
  promptFrom: "bank" | "own";
  prompt: string;
  system_prompt: string;
  prompt_template: string;
  weight: string;
  temperature: string;
  max_tokens: string;
  timeout_s: string;
};

export type ItemRow = { id: string; query: string; expected: string };

export type Strategy = "majority" | "unanimous" | "weighted" | "first_disagreement";

export type JudgeFormState = {
  critics: CriticRow[];
  itemsFrom: "rows" | "jsonl";
  items: ItemRow[];
  jsonl: string;
  labels: string;
  strategy: Strategy;
  /** majority: labels that win a tie, in order. */
  priority: string;
  fallback: string;
  /** weighted only. */
  use_confidence: boolean;
  /** first_disagreement only. */
  disagree_label: string;
  contested_threshold: string;
  seed: string;
  concurrency: string;
};

/** A simulated critic with the API's defaults for everything but its name. */
export function newCritic(name: string, over: Partial<CriticRow> = {}): CriticRow {
  return {
    name,
    model: simulatorChoice("sim:critic"),
    noise: "0",
    promptFrom: "bank",
    prompt: "",
    system_prompt: "",
    prompt_template: "",
    weight: "1",
    temperature: "0",
    max_tokens: "2000",
    timeout_s: "60",
    ...over,
  };
}

export const DEFAULT_LABELS = "KEEP, REJECT, SPLIT, MERGE, UNCLEAR";

/**
 * The form as it opens: the README's example panel (a strict critic, a general one and a noisy one,
 * all simulated), one empty item, and the API's defaults for the rest.
 */
export const JUDGE_DEFAULTS: JudgeFormState = {
  critics: [
    newCritic("strict", { prompt: "strict-reviewer@1" }),
    newCritic("general"),
    newCritic("noisy", { noise: "0.5" }),
  ],
  itemsFrom: "rows",
  items: [{ id: "q1", query: "", expected: "" }],
  jsonl: "",
  labels: DEFAULT_LABELS,
  strategy: "majority",
  priority: "",
  fallback: "",
  use_confidence: true,
  disagree_label: "",
  contested_threshold: "0.4",
  seed: "0",
  concurrency: "",
};

type JudgeItem = JudgeRunRequest["items"][number];
type JudgeCritic = JudgeRunRequest["critics"][number];

/**
 * Items from JSONL, one JSON object per line as the CLI and cross-judge read them: `query`, `id` (or
 * `query_id`; default the query's first 80 characters), `context`, `expected`; `meta` is the caller's
 * and is not sent. Blank lines are skipped. Throws a FormProblem naming the line.
 */
export function parseItemsJsonl(text: string): JudgeItem[] {
  const items: JudgeItem[] = [];
  const lines = text.split(/\r?\n/);
  for (const [i, line] of lines.entries()) {
    if (!line.trim()) continue;
    const where = `items line ${i + 1}`;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (err) {
      throw new FormProblem(where, `not JSON (${(err as Error).message})`);
    }
    if (!row || typeof row !== "object" || Array.isArray(row))
      throw new FormProblem(where, "each line is a JSON object with a query");
    const r = row as Record<string, unknown>;
    if (typeof r.query !== "string" || !r.query) throw new FormProblem(where, "query must be non-empty text");
    const id = r.id ?? r.query_id ?? Array.from(r.query).slice(0, 80).join("");
    if (typeof id !== "string") throw new FormProblem(where, "id must be text");
    const item: JudgeItem = { id, query: r.query };
    if (r.context !== undefined) item.context = r.context as JudgeItem["context"];
    if (r.expected !== undefined) item.expected = r.expected as string;
    items.push(item);
  }
  if (!items.length) throw new FormProblem("items", "no items: paste JSONL or upload a .jsonl file");
  return items;
}

function criticRequest(c: CriticRow): JudgeCritic {
  const out = { name: c.name.trim(), ...modelFields(c.model) } as JudgeCritic;
  if (c.promptFrom === "own") {
    // "" is a real value for the system prompt (send none); the template is required by then.
    out.system_prompt = c.system_prompt;
    out.prompt_template = c.prompt_template;
  } else if (c.prompt) {
    out.prompt = c.prompt;
  }
  for (const key of ["weight", "temperature", "max_tokens", "timeout_s"] as const) put(out, key, num(c[key]));
  if (isSimulated(c.model)) {
    const noise = num(c.noise);
    // A noise of 0 is what a simulated critic does without knobs: nothing to send.
    if (noise !== undefined && noise !== 0) out.simulator = { noise: noise as number };
  }
  return out;
}

export function judgeRequest(f: JudgeFormState): JudgeRunRequest {
  const items =
    f.itemsFrom === "jsonl"
      ? parseItemsJsonl(f.jsonl)
      : f.items.map((r) => {
          const item: JudgeItem = { id: r.id.trim(), query: r.query };
          if (r.expected.trim()) item.expected = r.expected.trim();
          return item;
        });
  const voting: NonNullable<JudgeRunRequest["voting"]> = { strategy: f.strategy };
  // Each strategy takes only its own options (the API refuses the others, naming them).
  if (f.strategy === "majority" && list(f.priority).length) voting.priority = list(f.priority);
  if (f.fallback.trim()) voting.fallback = f.fallback.trim();
  if (f.strategy === "weighted" && !f.use_confidence) voting.use_confidence = false;
  if (f.strategy === "first_disagreement" && f.disagree_label.trim()) voting.disagree_label = f.disagree_label.trim();
  const body: JudgeRunRequest = { items, critics: f.critics.map(criticRequest), voting };
  if (list(f.labels).length) body.labels = list(f.labels);
  put(body, "contested_threshold", num(f.contested_threshold));
  put(body, "seed", num(f.seed));
  put(body, "concurrency", num(f.concurrency));
  return body;
}
