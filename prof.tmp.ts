import { defaultIdf, score, tokenize } from "./src/engines/vrty/index.ts";
import { normalise, scanText } from "./src/engines/vrty/text.ts";
import { STOPWORDS } from "./src/engines/vrty/stopwords.ts";
const idf = await defaultIdf();
const vocab = [...idf.terms.keys()].filter((t) => /^[a-z]{3,}$/.test(t));
let s = 1; const next = () => { s = (s * 16807) % 2147483647; return s / 2147483647; };
function synth(n: number) { const p: string[] = []; for (let i = 0; i < n; i++) { let w = next() < 0.45 ? STOPWORDS[Math.floor(next()*153)] : vocab[Math.floor(vocab.length * next() ** 3)]; if (i % 15 === 14) w += "."; p.push(i%15===0? w[0].toUpperCase()+w.slice(1):w); } return p.join(" "); }
for (const n of [100, 500, 2000]) {
  const texts = Array.from({length: 32}, () => synth(n));
  const prompt = "What is the capital of France and the meaning of life universe?";
  const time = (name: string, f: (t: string) => unknown) => { for (let i=0;i<2000;i++) f(texts[i%32]); const t0 = performance.now(); for (let i=0;i<10000;i++) f(texts[i%32]); console.log(n, name, ((performance.now()-t0)/10000*1000).toFixed(2), "us"); };
  time("normalise", (t) => normalise(t));
  time("tokenize", (t) => tokenize(t));
  const ids = new Int32Array(2048), ends = new Int32Array(2048);
  time("scan", (t) => scanText(t, {ids: new Map(), list: []}, ids, ends));
  time("scan+sort", (t) => { const tt = {ids: new Map<string,number>(), list: [] as string[]}; scanText(t, tt, ids, ends); return tt.list.slice().sort(); });
  time("score", (t) => score(prompt, t, idf));
}
