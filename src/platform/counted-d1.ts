/**
 * A D1 binding that charges every query to the running invocation (see invocation.ts) and checks
 * every statement as production would (sql-guard.ts: its length, bound parameters, the values and
 * rows it writes) before D1 sees it. Statements are wrapped so that `bind` keeps counting and
 * checking; `batch` is one query to production and hands D1 the statements it made.
 */
import { charge } from "./invocation.ts";
import { checkStatement } from "./sql-guard.ts";

const RUNS = new Set(["first", "all", "run", "raw"]);
const innerOf = new WeakMap<object, D1PreparedStatement>();

function countedStatement(stmt: D1PreparedStatement, query: string): D1PreparedStatement {
  const proxy = new Proxy(stmt, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof value !== "function") return value;
      if (prop === "bind") {
        return (...values: unknown[]) => {
          checkStatement("d1RowBytes", "D1", query, values);
          return countedStatement(target.bind(...values), query);
        };
      }
      if (typeof prop === "string" && RUNS.has(prop)) {
        return (...args: unknown[]) => {
          charge("d1");
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  });
  innerOf.set(proxy, stmt);
  return proxy;
}

export function countedD1(db: D1Database): D1Database {
  return new Proxy(db, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (prop === "prepare") {
        return (query: string) => {
          checkStatement("d1RowBytes", "D1", query, []);
          return countedStatement(target.prepare(query), query);
        };
      }
      if (prop === "batch") {
        return (statements: D1PreparedStatement[]) => {
          charge("d1");
          return target.batch(statements.map((s) => innerOf.get(s) ?? s));
        };
      }
      if (prop === "exec") {
        return (query: string) => {
          charge("d1");
          return target.exec(query);
        };
      }
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
