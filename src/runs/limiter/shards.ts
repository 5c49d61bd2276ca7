/**
 * Sharding one endpoint's limiter: N objects per (tenant, endpoint, key), each owning a share of the
 * window, so that no single object serves every lane of a busy key. Pure: the lane picks its shard
 * (`shardOf`), the shard sizes its window from its name (`shardOptions`).
 *
 * Each shard runs the whole control law on its share: it grows with its own successes and is cut by
 * its own lanes' overloads. Together they start at the unsharded window's `initial` and stay within
 * its `max` (rounded up to a whole request per shard); what they give up is that one shard's 429
 * does not cut the others' shares at once, each learns the endpoint's limit from its own refusals.
 */
import { checkWindowOptions, type WindowOptions } from "./window.ts";

/** The options of one of `shards` shards: its share of the initial and largest window, at least one request. */
export function shardOptions(o: WindowOptions, shards: number): WindowOptions {
  if (!Number.isInteger(shards) || shards < 1)
    throw new RangeError(`shardOptions: shards must be a positive integer, got ${shards}`);
  if (shards === 1) return o;
  const max = Math.max(o.min, Math.ceil(o.max / shards));
  const share = { ...o, max, initial: Math.min(max, Math.max(o.min, Math.round(o.initial / shards))) };
  checkWindowOptions(share);
  return share;
}

/**
 * The shard a lane uses, from its name (`${runId}:${lane}`): a hash (32-bit FNV-1a), so the lanes of
 * one run and those of many small runs alike spread evenly, and a lane always uses the same shard.
 */
export function shardOf(laneName: string, shards: number): number {
  if (!Number.isInteger(shards) || shards < 1)
    throw new RangeError(`shardOf: shards must be a positive integer, got ${shards}`);
  let h = 0x811c9dc5;
  for (let i = 0; i < laneName.length; i++) h = Math.imul(h ^ laneName.charCodeAt(i), 0x01000193) >>> 0;
  return h % shards;
}
