/**
 * The simulator's embeddings (`sim:*` as the SS `embeddings` model): feature hashing of a text's
 * lower-cased words into SIM_EMBEDDING_DIMS signed buckets, L2-normalised. Texts sharing words have
 * a positive cosine, identical texts 1, disjoint ones about 0: enough to exercise SS through an
 * embeddings backend offline. Not a language model: values are not comparable with real embeddings.
 */
import { abortableSleep } from "../retry.ts";
import type { EmbeddingClient } from "../types.ts";
import { hashOf } from "./hash.ts";

export const SIM_EMBEDDING_DIMS = 64;

export function simEmbedding(text: string, dims: number = SIM_EMBEDDING_DIMS): number[] {
  const v = new Array<number>(dims).fill(0);
  for (const word of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (!word) continue;
    const h = hashOf("embed", word);
    v[h % dims] += h & 0x80000000 ? -1 : 1;
  }
  const norm = Math.hypot(...v);
  return norm === 0 ? v : v.map((x) => x / norm);
}

export function createSimEmbeddingClient({ latencyMs = 0 }: { latencyMs?: number } = {}): EmbeddingClient {
  return {
    async embed(request, { signal } = {}) {
      if (signal?.aborted) throw signal.reason;
      if (latencyMs > 0) await abortableSleep(latencyMs, signal);
      const dims = request.dimensions ?? SIM_EMBEDDING_DIMS;
      const tokens = request.input.reduce((n, t) => n + Math.ceil(t.length / 4), 0);
      return {
        data: request.input.map((t) => simEmbedding(t, dims)),
        model: request.model,
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      };
    },
  };
}
