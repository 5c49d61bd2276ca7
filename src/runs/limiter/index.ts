/**
 * The adaptive concurrency of a model endpoint, as plain data and functions: the window's control
 * law (window.ts) and the permits it gates (permits.ts). Pure, so it is tested with a hand-driven
 * clock; the Durable Object that shares it per tenant and endpoint is src/runs/limiter/endpoint-limiter.ts.
 */
export { DEFAULT_WINDOW, newWindow, onOverload, onSuccess, openTo, windowLimit } from "./window.ts";
export type { WindowOptions, WindowState } from "./window.ts";
export { MAX_PAUSE_MS, PermitBook } from "./permits.ts";
export type { Grant, Outcome, Released } from "./permits.ts";
export { shardOf, shardOptions } from "./shards.ts";
