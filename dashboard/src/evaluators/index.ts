// The evaluators the dashboard knows, one line each, in the order the nav and the pickers show them (the
// README's). Each folder's index.ts registers its EvaluatorUi when imported here, so importing this module
// is what fills the registry: pages import `evaluators` from here, never from ./registry.ts.
import "./chain-determinism/index.ts";
import "./rpl/index.ts";
import "./judge/index.ts";
import "./reasoning-quality/index.ts";
import "./vrty/index.ts";

export { evaluators } from "./registry.ts";
