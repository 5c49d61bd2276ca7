// vrty as you type: the prompt and response are scored by POST /v1/vrty/score a moment after the last
// keystroke (an answer that arrives after a newer request was made is dropped), and the four dimensions,
// the composite and the explanations are shown from the API's result.
import { useEffect, useMemo, useState } from "preact/hooks";
import { scoreVrty, type VrtyResult } from "@assay/sdk";
import { call, client } from "../../api.ts";
import { ChartCanvas } from "../../components/chart.tsx";
import { DIMENSIONS, dimensionsChart } from "./charts.ts";

/** Milliseconds after the last keystroke before the pair is scored. */
const DEBOUNCE_MS = 250;

export function Playground({ idfTable }: { idfTable: string }) {
  const [prompt, setPrompt] = useState("What is the capital of France?");
  const [response, setResponse] = useState("Paris is the capital of France.");
  const [result, setResult] = useState<VrtyResult | null>(null);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!prompt.trim() || !response.trim()) {
      setResult(null);
      setPending(false);
      return;
    }
    setPending(true);
    const controller = new AbortController();
    const timer = setTimeout(() => {
      call(scoreVrty({ client, body: { prompt, response, idf_table: idfTable }, signal: controller.signal })).then(
        (r) => {
          if (controller.signal.aborted) return;
          setResult(r);
          setError(null);
          setPending(false);
        },
        (e: Error) => {
          if (controller.signal.aborted) return;
          setError(e.message);
          setPending(false);
        },
      );
    }, DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [prompt, response, idfTable]);

  const chart = useMemo(() => (result ? dimensionsChart(result) : null), [result]);
  return (
    <section aria-labelledby="vrty-one">
      <h2 id="vrty-one">Score a pair</h2>
      <div class="vrty-inputs">
        <label>
          Prompt
          <textarea value={prompt} rows={4} onInput={(e) => setPrompt(e.currentTarget.value)} />
        </label>
        <label>
          Response
          <textarea value={response} rows={4} onInput={(e) => setResponse(e.currentTarget.value)} />
        </label>
      </div>
      <p class="vrty-state hint" aria-live="polite" data-state={pending ? "scoring" : result ? "scored" : "idle"}>
        {!prompt.trim() || !response.trim()
          ? "Type a prompt and a response to score them."
          : pending
            ? "Scoring…"
            : result
              ? `vrty ${result.vrty_version}, IDF table ${result.idf_sha256.slice(0, 12)}…`
              : ""}
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {result && chart && (
        <div class={`vrty-result${pending ? " stale" : ""}`}>
          <div class="cards">
            <div class="card composite" data-dim="composite">
              <div class="label">composite</div>
              <div class="value" data-value={String(result.composite)}>
                {result.composite.toFixed(4)}
              </div>
            </div>
            {DIMENSIONS.map((d) => (
              <div class="card" key={d} data-dim={d}>
                <div class="label">
                  {d} <span title="weight in the composite">×{result.weights[d]}</span>
                </div>
                <div class="value" data-value={String(result[d])}>
                  {result[d].toFixed(4)}
                </div>
              </div>
            ))}
          </div>
          <ChartCanvas config={chart} label="vrty dimensions and composite" height={190} />
          <h3>Explanations</h3>
          <ul class="vrty-explanations">
            {DIMENSIONS.map((d) => (
              <li key={d} data-dim={d}>
                {result.explanations[d]}
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}
