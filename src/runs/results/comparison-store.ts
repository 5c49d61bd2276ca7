// Where comparisons keep what they read and what they answered (issue 23), in R2 (binding RESULTS), every
// object under the prefix of the run it belongs to, so that deleting a run's prefix deletes them all:
// - `runs/<runId>/item-scores.json`: the run's basis, what its comparer kept when it was aggregated;
// - `runs/<baseId>/compare/<headId>/<confidence>-<min_effect>.json`: a comparison's answer, as served;
// - `runs/<headId>/compared-with/<baseId>`: an empty marker, so that deleting the head run finds the
//   answers kept under the base's prefix without listing every run.
// Both runs of a comparison are final and never change, so nothing here is invalidated by them; what
// can change is our code, hence the version in every key.

/**
 * Raise it when a comparer's basis or its numbers change: bases and answers kept by an earlier version
 * are then not read again (they go with their runs), so a fixed comparer never serves an old answer.
 */
export const COMPARISONS_VERSION = 1;

export const basisKey = (runId: string): string => `runs/${runId}/item-scores-v${COMPARISONS_VERSION}.json`;

/** Numbers as JSON writes them (0.95, 0.01): one key per (confidence, min_effect) a query can give. */
export const answerKey = (baseId: string, headId: string, confidence: number, minEffect: number): string =>
  `runs/${baseId}/compare/${headId}/v${COMPARISONS_VERSION}/${JSON.stringify(confidence)}-${JSON.stringify(minEffect)}.json`;

export const comparedWithKey = (headId: string, baseId: string): string => `runs/${headId}/compared-with/${baseId}`;

const json = { httpMetadata: { contentType: "application/json" } };

/** Keeps a run's basis; written before the run's row says it succeeded, so a succeeded run has one. */
export async function storeBasis(bucket: R2Bucket, runId: string, basis: unknown): Promise<void> {
  await bucket.put(basisKey(runId), JSON.stringify(basis), json);
}

/** A run's basis, or null for a run aggregated before bases were kept. */
export async function loadBasis(bucket: R2Bucket, runId: string): Promise<unknown> {
  const object = await bucket.get(basisKey(runId));
  return object ? JSON.parse(await object.text()) : null;
}

/** A kept answer's JSON text, or null. */
export async function loadAnswer(
  bucket: R2Bucket,
  key: { base: string; head: string; confidence: number; minEffect: number },
): Promise<string | null> {
  const object = await bucket.get(answerKey(key.base, key.head, key.confidence, key.minEffect));
  return object ? object.text() : null;
}

/**
 * Keeps an answer. The marker goes first: an answer is never under the base's prefix without the head
 * run pointing at it, so deleting either run deletes it (a marker without an answer is harmless).
 */
export async function storeAnswer(
  bucket: R2Bucket,
  key: { base: string; head: string; confidence: number; minEffect: number },
  text: string,
): Promise<void> {
  await bucket.put(comparedWithKey(key.head, key.base), new Uint8Array(0));
  await bucket.put(answerKey(key.base, key.head, key.confidence, key.minEffect), text, json);
}

/**
 * Deletes what a comparison just kept for runs that were deleted while it ran: the deletion may have
 * listed the runs' prefixes before these objects were written, and nothing would find them again.
 */
export async function dropKeptFor(
  bucket: R2Bucket,
  key: { base: string; head: string; confidence: number; minEffect: number },
  gone: string[],
): Promise<void> {
  if (!gone.length) return;
  await bucket.delete([
    answerKey(key.base, key.head, key.confidence, key.minEffect),
    comparedWithKey(key.head, key.base),
    ...gone.map(basisKey),
  ]);
}
