// Console output shared by the commands: JSON for --json, aligned text tables for people.
export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + "\n");
}

/** A plain table: a header row, a rule, rows; columns padded to their widest cell. */
export function table(header: string[], rows: (string | number)[][], align: ("left" | "right")[] = []): string {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => (align[i] === "right" ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join("  ")
      .trimEnd();
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...cells.slice(1).map(line)].join("\n") + "\n";
}

/**
 * Python's f"{x:.{digits}f}": the double's exact decimal value, rounded half to even (the originals'
 * consoles print with it; JS's toFixed sends exact ties away from zero: 0.125 → "0.13", Python "0.12").
 */
export function pyFixed(x: number, digits: number): string {
  if (!Number.isFinite(x)) return x > 0 ? "inf" : x < 0 ? "-inf" : "nan";
  const out = x.toFixed(digits);
  if (Math.abs(x) >= 1e21) return out;
  // toFixed rounds an exact tie away from zero; Python to the even digit. A tie shows in the double's
  // exact decimal expansion (toFixed(100) writes it out) as 5 then zeros after the kept digits.
  const exact = Math.abs(x).toFixed(100);
  const end = exact.indexOf(".") + (digits ? 1 + digits : 0);
  if (!/^\.?50*$/.test(exact.slice(end)) || Number(exact[end - 1]) % 2 === 1) return out;
  return (x < 0 ? "-" : "") + exact.slice(0, end);
}
