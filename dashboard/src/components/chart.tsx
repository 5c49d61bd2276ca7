// Chart.js on a canvas, drawn from a configuration built by a pure function (an evaluator's charts.ts,
// ../charts/compare.ts; those are unit-tested): this only hands them to Chart.js and redraws when they
// change.
import { useEffect, useRef } from "preact/hooks";
import { Chart, registerables, type ChartConfiguration } from "chart.js";

Chart.register(...registerables);
// The page works offline and follows the system font; no animation, so a screenshot shows the final plot.
Chart.defaults.font.family = "system-ui, sans-serif";
Chart.defaults.animation = false;

export function ChartCanvas({
  config,
  label,
  height = 280,
}: {
  config: ChartConfiguration;
  label: string;
  height?: number;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const chart = new Chart(canvas.current!, { ...config, options: { maintainAspectRatio: false, ...config.options } });
    return () => chart.destroy();
  }, [config]);
  return (
    <figure class="chart" style={{ height: `${height}px` }}>
      <canvas ref={canvas} role="img" aria-label={label} data-chart={label} />
    </figure>
  );
}
