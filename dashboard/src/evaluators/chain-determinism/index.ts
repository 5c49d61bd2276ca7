// chain-determinism in the dashboard: its form, its run view and how its runs compare.
import type { ChainDeterminismRun } from "@assay/sdk";
import { registerEvaluator } from "../registry.ts";
import { ChainDeterminismForm } from "./form.tsx";
import { ChainDeterminismView } from "./view.tsx";
import { detailLines, summary } from "./compare.ts";

registerEvaluator<ChainDeterminismRun>({
  name: "chain-determinism",
  title: "chain-determinism",
  runs: { Form: ChainDeterminismForm, View: ChainDeterminismView, summary, compare: { detailLines } },
});
