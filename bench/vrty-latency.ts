// Latency of vrty `score` against the default IDF table, for responses of exactly 100, 500 and
// 2,000 tokens with a ~15-token prompt. Target (3x the Python reference's p99):
// ≤ 0.053 / 0.17 / 0.98 ms. Run directly: `npx node bench/vrty-latency.ts`.
import { defaultIdf, score, tokenize } from "../src/engines/vrty/index.ts";
import { STOPWORDS } from "../src/engines/vrty/stopwords.ts";

/**
 * One size's figures: `calls` timed calls in each of `rounds` rounds; p50/p99/mean are those of the
 * median round (by p99), and `p99_min_ms`/`p99_max_ms` the spread of p99 over rounds. Rounds make the
 * figure robust on a shared machine, where one round can be slowed by a neighbour; the spread shows it.
 */
export type LatencyRow = {
  tokens: number;
  calls: number;
  rounds: number;
  p50_ms: number;
  p99_ms: number;
  mean_ms: number;
  p99_min_ms: number;
  p99_max_ms: number;
};

const SIZES = [100, 500, 2000];
const CALLS = 10_000;
const WARMUP = 1_000;
const ROUNDS = 5;
const VARIANTS = 32; // distinct inputs per size, cycled, so no call sees a string it saw just before

/** mulberry32: tiny seeded PRNG, so every run times the same inputs. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * English-like text of exactly `tokens` tokens: about 45% stopwords, content words drawn with a
 * Zipf-like skew from the table's vocabulary, sentences of 6–24 tokens ending in . ! or ?,
 * occasional commas, capitalised sentence starts.
 */
function synthText(tokens: number, vocab: readonly string[], next: () => number): string {
  const parts: string[] = [];
  let inSentence = 0;
  let sentenceLen = 6 + Math.floor(next() * 19);
  for (let i = 0; i < tokens; i++) {
    let word =
      next() < 0.45 ? STOPWORDS[Math.floor(next() * STOPWORDS.length)] : vocab[Math.floor(vocab.length * next() ** 3)];
    if (inSentence === 0) word = word[0].toUpperCase() + word.slice(1);
    inSentence++;
    const last = i === tokens - 1 || inSentence === sentenceLen;
    if (last) {
      const r = next();
      word += r < 0.8 ? "." : r < 0.9 ? "?" : "!";
      inSentence = 0;
      sentenceLen = 6 + Math.floor(next() * 19);
    } else if (next() < 0.06) word += ",";
    parts.push(word);
  }
  return parts.join(" ");
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
}

export async function benchVrtyLatency(): Promise<LatencyRow[]> {
  const idf = await defaultIdf();
  const vocab = [...idf.terms.keys()].filter((t) => /^[a-z]{3,}$/.test(t));
  const next = rng(0x5eed);
  const rows: LatencyRow[] = [];
  for (const size of SIZES) {
    const pairs = Array.from({ length: VARIANTS }, () => {
      const prompt = `What ${synthText(14, vocab, next).replace(/[.!?]$/, "?")}`;
      const response = synthText(size, vocab, next);
      if (tokenize(response).length !== size) throw new Error(`bench: response is not ${size} tokens`);
      return { prompt, response };
    });
    let sink = 0;
    for (let i = 0; i < WARMUP; i++)
      sink += score(pairs[i % VARIANTS].prompt, pairs[i % VARIANTS].response, idf).composite;
    const rounds: Array<{ p50: number; p99: number; mean: number }> = [];
    for (let round = 0; round < ROUNDS; round++) {
      const times = new Float64Array(CALLS);
      for (let i = 0; i < CALLS; i++) {
        const { prompt, response } = pairs[i % VARIANTS];
        const t0 = process.hrtime.bigint();
        sink += score(prompt, response, idf).composite;
        times[i] = Number(process.hrtime.bigint() - t0) / 1e6;
      }
      let total = 0;
      for (const t of times) total += t;
      times.sort();
      rounds.push({ p50: percentile(times, 0.5), p99: percentile(times, 0.99), mean: total / CALLS });
    }
    if (!Number.isFinite(sink)) throw new Error("bench: non-finite composite");
    rounds.sort((a, b) => a.p99 - b.p99);
    const median = rounds[Math.floor(ROUNDS / 2)];
    rows.push({
      tokens: size,
      calls: CALLS,
      rounds: ROUNDS,
      p50_ms: median.p50,
      p99_ms: median.p99,
      mean_ms: median.mean,
      p99_min_ms: rounds[0].p99,
      p99_max_ms: rounds[ROUNDS - 1].p99,
    });
  }
  return rows;
}

if (import.meta.main) {
  const rows = await benchVrtyLatency();
  const fmt = (ms: number) => ms.toFixed(4).padStart(9);
  console.log(`vrty score latency (Node ${process.version}, default IDF table)`);
  console.log("tokens   calls rounds    p50 ms     p99 ms    mean ms   p99 min    p99 max");
  for (const r of rows) {
    console.log(
      `${String(r.tokens).padStart(6)} ${String(r.calls).padStart(7)} ${String(r.rounds).padStart(6)} ${fmt(r.p50_ms)}  ${fmt(r.p99_ms)}  ${fmt(r.mean_ms)} ${fmt(r.p99_min_ms)}  ${fmt(r.p99_max_ms)}`,
    );
  }
}
