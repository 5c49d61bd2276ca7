import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";
import { countedD1 } from "../platform/counted-d1.ts";

export type Db = DrizzleD1Database;

/** Every query is charged to the running invocation's D1 budget (src/platform/invocation.ts). */
export function openDb(d1: D1Database): Db {
  return drizzle(countedD1(d1));
}
