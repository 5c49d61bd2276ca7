export function ReasoningQualityForm() {
  return <p>New reasoning-quality run: not built yet.</p>;
}
