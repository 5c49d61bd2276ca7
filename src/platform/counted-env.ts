/**
 * The Worker's bindings with every call to another Cloudflare service charged as a subrequest of the
 * running invocation (invocation.ts): a Durable Object stub's RPC methods and fetch, R2, KV and Queue
 * sends. Production counts them against the same budget as fetch(); local workerd counts nothing. D1
 * is charged by openDb's wrapper (counted-d1.ts), so the D1 binding passes through as it is, and so do
 * static assets and plain values.
 */
import { charge } from "./invocation.ts";

type Method = (...args: unknown[]) => unknown;

/** Methods of R2, KV and Queue bindings that reach the service. */
const SERVICE_CALLS = new Set([
  "get",
  "put",
  "head",
  "list",
  "delete",
  "createMultipartUpload",
  "resumeMultipartUpload",
  "getWithMetadata",
  "send",
  "sendBatch",
]);

function charging(target: object, method: Method): Method {
  return (...args) => {
    charge("subrequest");
    // Reflect.apply, not method.apply: on a stub, `apply` would be taken for a remote method.
    return Reflect.apply(method, target, args);
  };
}

/** A stub whose every call (RPC method or fetch) is charged; `then` passes through so a stub is never taken for a promise. */
function countedStub<T extends object>(stub: T): T {
  return new Proxy(stub, {
    get(target, prop) {
      const value = Reflect.get(target, prop) as unknown;
      if (typeof prop !== "string" || prop === "then" || typeof value !== "function") return value;
      return charging(target, value as Method);
    },
  });
}

function countedNamespace(ns: DurableObjectNamespace): DurableObjectNamespace {
  return new Proxy(ns, {
    get(target, prop) {
      const value = Reflect.get(target, prop) as unknown;
      if (typeof value !== "function") return value;
      if (prop === "get" || prop === "getByName") {
        return (...args: unknown[]) => countedStub((value as Method).apply(target, args) as object);
      }
      return (value as Method).bind(target);
    },
  });
}

function countedService<T extends object>(binding: T): T {
  return new Proxy(binding, {
    get(target, prop) {
      const value = Reflect.get(target, prop) as unknown;
      if (typeof value !== "function") return value;
      return typeof prop === "string" && SERVICE_CALLS.has(prop)
        ? charging(target, value as Method)
        : (value as Method).bind(target);
    },
  });
}

function counted(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  const has = (name: string) => typeof (value as Record<string, unknown>)[name] === "function";
  if (has("idFromName")) return countedNamespace(value as DurableObjectNamespace);
  // R2 bucket, KV namespace, Queue producer.
  if (has("createMultipartUpload") || has("getWithMetadata") || has("sendBatch")) return countedService(value);
  return value;
}

const cache = new WeakMap<object, object>();

/** `env` with its service bindings counted; the same object for the same env. */
export function countedEnv<E extends object>(env: E): E {
  const hit = cache.get(env);
  if (hit) return hit as E;
  const wrapped: Record<string, unknown> = {};
  const out = new Proxy(env, {
    get(target, prop) {
      if (typeof prop !== "string") return Reflect.get(target, prop);
      if (!(prop in wrapped)) wrapped[prop] = counted(Reflect.get(target, prop));
      return wrapped[prop];
    },
  });
  cache.set(env, out);
  return out;
}
