/**
 * Resource ids: `<prefix>_<time><random>`, fixed width, so that they sort by creation time as plain
 * strings; list endpoints page on them (`?after=<id>`), newest first.
 */
export type IdPrefix = "ten" | "key" | "idf" | "run" | "ste" | "dlv" | "msg" | "grp" | "ds";

export function newId(prefix: IdPrefix, now = Date.now()): string {
  const time = now.toString(36).padStart(9, "0");
  const rand = crypto.getRandomValues(new Uint8Array(10));
  let tail = "";
  for (const b of rand) tail += (b % 36).toString(36);
  return `${prefix}_${time}${tail}`;
}
