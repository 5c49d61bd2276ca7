// New run forms, one per evaluator (../forms/), with the defaults of the API.
import { ChainDeterminismForm } from "../forms/chain-determinism.tsx";
import { RplForm } from "../forms/rpl.tsx";
import { JudgeForm } from "../forms/judge.tsx";
import { ReasoningQualityForm } from "../forms/reasoning-quality.tsx";

export function NewRunPage({ evaluator }: { evaluator: string }) {
  switch (evaluator) {
    case "chain-determinism":
      return <ChainDeterminismForm />;
    case "rpl":
      return <RplForm />;
    case "judge":
      return <JudgeForm />;
    case "reasoning-quality":
      return <ReasoningQualityForm />;
    default:
      return <p role="alert" class="error">No evaluator named “{evaluator}”.</p>;
  }
}
