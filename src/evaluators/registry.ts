/**
 * Every run evaluator by name: the app (its routes), the coordinator, the lanes, comparisons and the
 * stored results all find plug-ins here. The built-in ones are listed in index.ts; a test or a
 * deployment may register its own.
 */
import type { EvaluatorPlugin } from "../runs/plugin/plugin.ts";
import { BUILT_IN } from "./index.ts";

// A plug-in's own types (its body, config and result) do not matter to the platform, which hands each
// plug-in back only what the plug-in itself made.
// biome-ignore lint/suspicious/noExplicitAny: the parameters are each plug-in's own types (see above).
type AnyPlugin = EvaluatorPlugin<any, any, any>;

const plugins = new Map<string, AnyPlugin>(BUILT_IN.map((p) => [p.name, p]));

export const evaluators = {
  /** The plug-in of that name; throws for an unknown one (a run's evaluator is always registered). */
  get(name: string): AnyPlugin {
    const p = plugins.get(name);
    if (!p) throw new Error(`unknown evaluator '${name}'`);
    return p;
  },

  /**
   * The plug-in of that name, or undefined: only for showing a stored run, which must still be shown
   * (as stored) when its evaluator is no longer registered (a deployment that dropped one).
   */
  find(name: string): AnyPlugin | undefined {
    return plugins.get(name);
  },

  /** Every registered plug-in, built-in ones first. */
  all(): AnyPlugin[] {
    return [...plugins.values()];
  },

  /**
   * Adds a plug-in beside the built-in ones (a test's, or a deployment's own). Register it before
   * `createApp()` makes the app, so its routes are mounted, and before src/app.ts is first imported if
   * its runs should have variants of their own in the document's `Run`, `Sample` and `Comparison` (those
   * unions are built when their modules load; test/fixtures/toy-sum/worker.ts registers first for this).
   * The coordinator and lanes find it by name from then on. A name already taken is an error.
   */
  register(plugin: AnyPlugin): void {
    const existing = plugins.get(plugin.name);
    if (existing && existing !== plugin) throw new Error(`an evaluator named '${plugin.name}' is already registered`);
    plugins.set(plugin.name, plugin);
  },
};
