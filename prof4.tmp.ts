import { defaultIdf } from "./src/engines/vrty/index.ts";
import { scanText } from "./src/engines/vrty/text.ts";
import { STOPWORDS } from "./src/engines/vrty/stopwords.ts";
const idf = await defaultIdf();
const vocab = [...idf.terms.keys()].filter((t) => /^[a-z]{3,}$/.test(t));
let s = 1; const next = () => { s = (s * 16807) % 2147483647; return s / 2147483647; };
function synth(n: number) { const p: string[] = []; for (let i = 0; i < n; i++) { let w = next() < 0.45 ? STOPWORDS[Math.floor(next()*153)] : vocab[Math.floor(vocab.length * next() ** 3)]; if (i % 15 === 14) w += "."; p.push(i%15===0? w[0].toUpperCase()+w.slice(1):w); } return p.join(" "); }
const texts = Array.from({length: 32}, () => synth(2000));
const ids = new Int32Array(2048), ends = new Int32Array(2048);
const lists = texts.map(t => { const tt = {ids: new Map<string,number>(), list: [] as string[]}; scanText(t, tt, ids, ends); return tt; });
console.log("unique", lists[0].list.length);
const time = (name: string, f: (i: number) => unknown) => { for (let i=0;i<2000;i++) f(i%32); const t0 = performance.now(); for (let i=0;i<5000;i++) f(i%32); console.log(name, ((performance.now()-t0)/5000*1000).toFixed(2), "us"); };
time("slice.sort", i => lists[i].list.slice().sort());
time("sort cmp", i => lists[i].list.slice().sort((a,b)=> a < b ? -1 : a > b ? 1 : 0));
time("idsget", i => { let x=0; for (const t of lists[i].list) x+= lists[i].ids.get(t)!; return x; });
time("termsget", i => { let x=0; for (const t of lists[i].list) x+= idf.terms.get(t) ?? 0; return x; });
const LE = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
const B64 = new BigUint64Array(4096); const U32 = new Uint32Array(B64.buffer);
const DIGIT = new Uint8Array(128); for (let c=0x30;c<=0x39;c++) DIGIT[c]=c-0x30+1; for (let c=0x61;c<=0x7a;c++) DIGIT[c]=c-0x61+11;
const ORDER = new Int32Array(4096);
function keySort(list: string[]): Int32Array {
  const u = list.length;
  for (let id=0; id<u; id++) { const t = list[id]; let key=0; const n = t.length < 9 ? t.length : 9; let i=0; for (; i<n; i++) key = key*37 + DIGIT[t.charCodeAt(i)]; for (; i<9; i++) key *= 37;
    const lo20 = key % 1048576; U32[2*id] = lo20*4096 + id; U32[2*id+1] = (key - lo20)/1048576; }
  B64.subarray(0,u).sort();
  for (let k=0;k<u;k++) ORDER[k] = U32[2*k] & 4095;
  // tie runs
  let k = 0;
  while (k < u) { let e = k+1; while (e < u && U32[2*e+1] === U32[2*k+1] && (U32[2*e]>>>12) === (U32[2*k]>>>12)) e++;
    if (e - k > 1) { for (let i=k+1;i<e;i++){ const v=ORDER[i]; const sv=list[v]; let j=i-1; while (j>=k && list[ORDER[j]] > sv){ORDER[j+1]=ORDER[j]; j--;} ORDER[j+1]=v; } }
    k = e; }
  return ORDER;
}
for (const l of lists) { const o = keySort(l.list); const a = Array.from(o.subarray(0,l.list.length), i=>l.list[i]); const b = l.list.slice().sort(); if (a.join() !== b.join()) throw new Error("mismatch"); }
console.log("LE", LE, "ok");
time("keySort", i => keySort(lists[i].list));
