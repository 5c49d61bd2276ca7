// New run forms, one per evaluator (its folder's form.tsx), with the defaults of the API.
import { evaluators } from "../evaluators/index.ts";

export function NewRunPage({ evaluator }: { evaluator: string }) {
  const Form = evaluators.get(evaluator)?.runs?.Form;
  return Form ? (
    <Form />
  ) : (
    <p role="alert" class="error">
      No evaluator named “{evaluator}”.
    </p>
  );
}
