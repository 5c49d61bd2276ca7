// The evaluators that make runs, in the order the README presents them.
export const EVALUATORS = [
  { name: "chain-determinism", title: "chain-determinism" },
  { name: "rpl", title: "rpl" },
  { name: "judge", title: "judge" },
  { name: "reasoning-quality", title: "reasoning-quality" },
] as const;

export type EvaluatorName = (typeof EVALUATORS)[number]["name"];
