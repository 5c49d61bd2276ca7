export function JudgeForm() {
  return <p>New judge run: not built yet.</p>;
}
