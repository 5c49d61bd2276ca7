export function VrtyPage() {
  return <p>vrty playground: not built yet.</p>;
}
