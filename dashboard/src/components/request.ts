// What every "New run" form's request builder shares (each evaluator's own is its folder's request.ts):
// pure functions, no DOM, so the node tests can check that a form left as it opens asks for exactly what
// the API does by default.
//
// Numbers are kept as the text of their input. An empty field is left out of the request (the API's
// default applies); anything else is sent as a number when it reads as one, and as the text itself
// otherwise, so that the API, not the page, says what is wrong with it and names the field.
import type { Provider } from "@assay/sdk";

/** A problem the page finds before asking the API (a file it cannot read): `path` names the field. */
export class FormProblem extends Error {
  readonly path: string;
  constructor(path: string, message: string) {
    super(`${path}: ${message}`);
    this.path = path;
  }
}

/** A number field's text as the request's value: undefined when empty, a number, or the text as typed. */
export function num(text: string): number | string | undefined {
  const t = text.trim();
  if (t === "") return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n : t;
}

/** A comma-separated list (labels, prompt versions), each entry trimmed, without empty entries. */
export function list(text: string): string[] {
  return text
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Sets `key` only when `value` is defined: the request then carries only what the form says. */
export function put<T extends object>(target: T, key: string, value: unknown): void {
  if (value !== undefined) (target as Record<string, unknown>)[key] = value;
}

// ---- the model: the simulator or a saved connection ------------------------------------------------

/**
 * Where a run's (or a critic's) model is called. `sim`: the built-in simulator, `simModel` its name
 * (`sim:<anything>`). `connection`: a saved provider connection (`/v1/providers`) by `connection`,
 * with `model` the name that endpoint expects.
 */
export type ModelChoice = { source: "sim" | "connection"; simModel: string; model: string; connection: string };

export function simulatorChoice(simModel: string): ModelChoice {
  return { source: "sim", simModel, model: "", connection: "" };
}

export function isSimulated(choice: ModelChoice): boolean {
  return choice.source === "sim";
}

/** `model` and `provider` of a request: `{model: "sim:…"}`, or `{model, provider: {connection}}`. */
export function modelFields(choice: ModelChoice): { model: string; provider?: Provider } {
  if (choice.source === "sim") return { model: choice.simModel.trim() };
  return { model: choice.model.trim(), provider: { connection: choice.connection } };
}
