/**
 * Resource ids: `<prefix>_<time><random>`, fixed width, so that they sort by creation time as plain
 * strings; list endpoints page on them (`?after=<id>`), newest first.
 */
export type IdPrefix = "ten" | "key" | "idf" | "run" | "ste" | "dlv" | "msg" | "grp" | "ds" | "prv" | "ses" | "pmt";

/** The last time part handed out by this isolate for "now": ids made in the same millisecond still sort in order. */
let lastTime = 0;

/**
 * A new id made now, or at `at` (an explicit time is used as given). Ids made now by one isolate sort
 * in the order they were made: a Worker's clock stands still between I/O, so a tenant and its first key
 * get the same Date.now(), and the time part then moves on by 1 ms (as monotonic ULIDs do). Across
 * isolates, ids made within the same millisecond sort by their random part.
 */
export function newId(prefix: IdPrefix, at?: number): string {
  let time = at;
  if (time === undefined) time = lastTime = Math.max(Date.now(), lastTime + 1);
  const rand = crypto.getRandomValues(new Uint8Array(10));
  let tail = "";
  for (const b of rand) tail += (b % 36).toString(36);
  return `${prefix}_${time.toString(36).padStart(9, "0")}${tail}`;
}
