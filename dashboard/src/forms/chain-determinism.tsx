export function ChainDeterminismForm() {
  return <p>New chain-determinism run: not built yet.</p>;
}
