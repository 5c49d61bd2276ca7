export function ProgressBar({ progress }: { progress: { done: number; failed: number; total: number } }) {
  const { done, failed, total } = progress;
  const pct = total ? Math.round((done / total) * 100) : 0;
  return (
    <span
      class="progress"
      role="progressbar"
      aria-valuemin={0}
      aria-valuemax={total}
      aria-valuenow={done}
      aria-label={`${done} of ${total} done`}
    >
      <span class="bar">
        <span class="fill" style={{ width: `${pct}%` }} />
      </span>
      <span class="count">
        {done}/{total}
        {failed ? `, ${failed} failed` : ""}
      </span>
    </span>
  );
}
