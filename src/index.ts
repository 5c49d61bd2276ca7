import { createApp } from "./app.ts";

const app = createApp();

// `satisfies` keeps the handlers' concrete types, so tests can call them directly.
export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Env>;
