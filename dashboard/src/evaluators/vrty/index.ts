// vrty in the dashboard: it scores on demand and keeps no runs, so it has a page of its own (the
// playground) and nothing in the run pages.
import { registerEvaluator } from "../registry.ts";
import { VrtyPage } from "./page.tsx";

registerEvaluator({ name: "vrty", title: "vrty", Page: VrtyPage });
