// The run's model endpoint as its shared limiter saw it (issue 19): the concurrency window over time
// and the requests in flight on it, with the run's requests, retries and 429s.
import type { ChartConfiguration } from "chart.js";
import type { EndpointReport, Run } from "@assay/sdk";
import { ChartCanvas } from "./chart.tsx";

/** Two steps lines over the run's seconds: the window's limit, and the requests in flight on it. */
export function endpointChartConfig(report: EndpointReport): ChartConfiguration<"line"> {
  const points = (i: 1 | 2) => report.series.map((p) => ({ x: p[0], y: p[i] }));
  // A run shorter than a bucket has one point, which a line without markers does not draw.
  const pointRadius = report.series.length < 2 ? 4 : 0;
  return {
    type: "line",
    data: {
      datasets: [
        {
          label: "window (limit)",
          data: points(1),
          borderColor: "#2f5fd0",
          backgroundColor: "#2f5fd0",
          stepped: true,
          pointRadius,
        },
        {
          label: "in flight",
          data: points(2),
          borderColor: "#8a93a3",
          backgroundColor: "#8a93a3",
          stepped: true,
          pointRadius,
        },
      ],
    },
    options: {
      parsing: false,
      scales: {
        x: {
          type: "linear",
          min: 0,
          title: { display: true, text: `seconds since the first model call (${report.bucket_s} s per point)` },
        },
        y: { beginAtZero: true, title: { display: true, text: "requests" } },
      },
    },
  };
}

export function EndpointView({ run }: { run: Run }) {
  const report = run.endpoint;
  if (!report) return null;
  const calls = run.calls;
  return (
    <section class="endpoint" aria-label="Model endpoint">
      <h2>Model endpoint</h2>
      <p>
        {report.adaptive ? "Adaptive concurrency" : "Concurrency bounded by the run"}: the window reached{" "}
        {report.max_limit}, with at most {report.max_in_flight} requests in flight
        {calls ? `; ${calls.requests} requests, ${calls.retries} retries, ${calls.rate_limited} answered 429` : ""}.
      </p>
      <ChartCanvas config={endpointChartConfig(report)} label="Concurrency window over time" height={200} />
    </section>
  );
}
