/**
 * Resource ids: `<prefix>_<time><random>`, fixed width, so that they sort by creation time as plain
 * strings; list endpoints page on them (`?after=<id>`), newest first.
 */
export type IdPrefix = "ten" | "key" | "idf" | "run" | "ste" | "dlv" | "msg" | "grp" | "ds";

/** The last time part handed out by this isolate: ids made in the same millisecond still sort in order. */
let lastTime = 0;

export function newId(prefix: IdPrefix, now = Date.now()): string {
  // A Worker's clock stands still between I/O, so a tenant and its first key get the same Date.now():
  // the time part moves on by 1 ms instead (as monotonic ULIDs do), keeping "newest first" true.
  lastTime = Math.max(now, lastTime + 1);
  const time = lastTime.toString(36).padStart(9, "0");
  const rand = crypto.getRandomValues(new Uint8Array(10));
  let tail = "";
  for (const b of rand) tail += (b % 36).toString(36);
  return `${prefix}_${time}${tail}`;
}
