import { defaultIdf } from "./src/engines/vrty/index.ts";
import { score, T } from "./score-instr.tmp.ts";
import { STOPWORDS } from "./src/engines/vrty/stopwords.ts";
const idf = await defaultIdf();
const vocab = [...idf.terms.keys()].filter((t) => /^[a-z]{3,}$/.test(t));
let s = 1; const next = () => { s = (s * 16807) % 2147483647; return s / 2147483647; };
function synth(n: number) { const p: string[] = []; for (let i = 0; i < n; i++) { let w = next() < 0.45 ? STOPWORDS[Math.floor(next()*153)] : vocab[Math.floor(vocab.length * next() ** 3)]; if (i % 15 === 14) w += "."; p.push(i%15===0? w[0].toUpperCase()+w.slice(1):w); } return p.join(" "); }
for (const n of [100,2000]) {
const texts = Array.from({length: 32}, () => synth(n));
const prompt = "What is the capital of France and the meaning of life universe?";
for (let i=0;i<3000;i++) score(prompt, texts[i%32], idf);
T.fill(0);
for (let i=0;i<5000;i++) score(prompt, texts[i%32], idf);
console.log(n, ["scanR+P","sort+rank","tf","walk","coh"].map((k,i)=>k+"="+(T[i]/5000*1000).toFixed(1)+"us").join(" "));
}
