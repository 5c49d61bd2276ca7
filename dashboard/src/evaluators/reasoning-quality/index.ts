// reasoning-quality in the dashboard: its five-step form, its run view and reports, and how its runs
// compare (metrics per model, rank changes).
import type { ReasoningQualityRun } from "@assay/sdk";
import { registerEvaluator } from "../registry.ts";
import { ReasoningQualityForm } from "./form.tsx";
import { ReasoningQualityView } from "./view.tsx";
import { detailLines, metricModel, summary } from "./compare.ts";
import { RankChangesSection } from "./compare-view.tsx";

registerEvaluator<ReasoningQualityRun>({
  name: "reasoning-quality",
  title: "reasoning-quality",
  runs: {
    Form: ReasoningQualityForm,
    View: ReasoningQualityView,
    summary,
    compare: { detailLines, metricModel, Section: RankChangesSection },
  },
});
