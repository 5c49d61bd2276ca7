// Storage: what the tenant keeps (runs, samples, bytes; GET /v1/usage), where it stands against its
// quotas (the same call), and how long ended runs are kept (GET/PUT /v1/settings), which the server
// applies by deleting older runs.
import { useEffect, useState } from "preact/hooks";
import { getSettings, getUsage, putSettings, type Settings, type Usage } from "@assay/sdk";
import { call, client } from "../api.ts";

/** Decimal units, as D1's and R2's limits are given. */
function bytes(n: number): string {
  if (n < 1000) return `${n} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let v = n;
  let u = -1;
  while (v >= 1000 && u < units.length - 1) {
    v /= 1000;
    u++;
  }
  return `${v.toPrecision(3)} ${units[u]}`;
}

export function StoragePage() {
  const [usage, setUsage] = useState<Usage | null>(null);
  const [settings, setSettings] = useState<Settings | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    Promise.all([call(getUsage({ client })), call(getSettings({ client }))]).then(
      ([u, s]) => {
        setUsage(u);
        setSettings(s);
      },
      (e: Error) => setError(e.message),
    );
  }, []);
  return (
    <section>
      <h1>Storage</h1>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {usage && (
        <section class="cards" aria-label="Usage">
          <div class="card">
            <div class="label">Runs</div>
            <div class="value" data-usage="runs">
              {usage.runs}
            </div>
          </div>
          <div class="card">
            <div class="label">Samples</div>
            <div class="value" data-usage="samples">
              {usage.samples}
            </div>
          </div>
          <div class="card">
            <div class="label">Stored</div>
            <div class="value" data-usage="total" title={`${usage.bytes.total} bytes`}>
              {bytes(usage.bytes.total)}
            </div>
          </div>
          <div class="card">
            <div class="label">Database / objects</div>
            <div class="value">
              {bytes(usage.bytes.d1)} / {bytes(usage.bytes.r2)}
            </div>
          </div>
        </section>
      )}
      {usage && <QuotaTable quotas={usage.quotas} />}
      {settings && <RetentionForm settings={settings} onSaved={setSettings} />}
    </section>
  );
}

/** Each quota, what the tenant used of it and its limit; an operator changes a limit (docs/quotas.md). */
const QUOTA_ROWS: [keyof Usage["quotas"], string, (n: number) => string][] = [
  ["runs_per_minute", "Runs created in the last minute", String],
  ["concurrent_runs", "Runs not ended (queued or running)", String],
  ["units_per_day", "Units of runs created today (UTC)", (n) => n.toLocaleString("en-US")],
  ["stored_bytes", "Stored", bytes],
  ["heavy_reads_per_minute", "Comparisons, exports and reports in the last minute", String],
];

function QuotaTable({ quotas }: { quotas: Usage["quotas"] }) {
  return (
    <>
      <h2>Quotas</h2>
      <p class="hint">
        Past a limit the request is refused (429) and says when to try again. The operator sets each tenant's limits.
      </p>
      <table aria-label="Quotas">
        <thead>
          <tr>
            <th scope="col">Quota</th>
            <th scope="col">Used</th>
            <th scope="col">Limit</th>
          </tr>
        </thead>
        <tbody>
          {QUOTA_ROWS.map(([name, label, show]) => (
            <tr key={name} data-quota={name}>
              <th scope="row">{label}</th>
              <td data-used>{show(quotas[name].used)}</td>
              <td data-limit>{show(quotas[name].limit)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

function RetentionForm({ settings, onSaved }: { settings: Settings; onSaved: (s: Settings) => void }) {
  const [forever, setForever] = useState(settings.retention_days === null);
  const [days, setDays] = useState(String(settings.retention_days ?? 30));
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setSaved(false);
    try {
      onSaved(await call(putSettings({ client, body: { retention_days: forever ? null : Number(days) } })));
      setSaved(true);
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <form class="connection-form" onSubmit={submit}>
      <h2>Retention</h2>
      <p class="hint" data-retention>
        {settings.retention_days === null
          ? "Ended runs are kept for ever."
          : `Ended runs are deleted ${settings.retention_days} days after they end, with their samples and results.`}
      </p>
      <label class="inline">
        <input type="checkbox" checked={forever} onChange={(e) => setForever(e.currentTarget.checked)} /> Keep runs for
        ever
      </label>
      {!forever && (
        <label>
          Days to keep an ended run
          <input
            name="retention_days"
            type="number"
            min={1}
            step={1}
            value={days}
            onInput={(e) => setDays(e.currentTarget.value)}
            required
          />
        </label>
      )}
      <button type="submit">Save</button>
      {saved && <span role="status"> Saved.</span>}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </form>
  );
}
