export function RplForm() {
  return <p>New rpl run: not built yet.</p>;
}
