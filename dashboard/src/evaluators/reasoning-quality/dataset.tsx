// Step 1 of the reasoning-quality form: the items. A JSON or CSV file (previewed here, then uploaded with
// uploadReasoningQualityDataset, whose validation errors are shown as the API words them), a dataset
// uploaded before, or the synthetic generator.
import { useEffect, useMemo, useState } from "preact/hooks";
import { listReasoningQualityDatasets, uploadReasoningQualityDataset, type Dataset } from "@assay/sdk";
import { call, client } from "../../api.ts";
import { NumberInput } from "./number-input.tsx";
import {
  datasetNameOf,
  formatOfFile,
  previewDataset,
  uploadBody,
  UPLOAD_FORMATS,
  type DatasetChoice,
  type Preview,
  type UploadFormat,
} from "./request.ts";

type Source = "upload" | "existing" | "synthetic";
type Upload =
  | { state: "idle" }
  | { state: "uploading" }
  | { state: "done"; dataset: Dataset }
  | { state: "failed"; message: string };

const SYNTHETIC_DEFAULTS = { seed: 42, num_reasoning: 20, num_adversarial: 10, num_robustness: 10 };

export function DatasetStep({ onChange }: { onChange: (choice: DatasetChoice) => void }) {
  const [source, setSource] = useState<Source>("upload");
  const [synthetic, setSynthetic] = useState(SYNTHETIC_DEFAULTS);
  const [uploaded, setUploaded] = useState<Dataset | null>(null);
  const [existing, setExisting] = useState<Dataset | null>(null);
  const [numSamples, setNumSamples] = useState<number | null>(null);

  useEffect(() => {
    if (source === "synthetic") return onChange({ kind: "synthetic", ...synthetic });
    const ds = source === "upload" ? uploaded : existing;
    onChange({ kind: "uploaded", id: ds?.id ?? null, nItems: ds?.n_items ?? null, numSamples });
  }, [source, synthetic, uploaded, existing, numSamples]);

  const sources: [Source, string][] = [
    ["upload", "Upload a file (JSON or CSV)"],
    ["existing", "A dataset uploaded before"],
    ["synthetic", "Synthetic generator"],
  ];
  return (
    <section class="rq-step" aria-labelledby="rq-dataset">
      <h2 id="rq-dataset">1. Dataset</h2>
      <div class="rq-choices" role="radiogroup" aria-label="Dataset source">
        {sources.map(([value, label]) => (
          <label key={value} class="check">
            <input
              type="radio"
              name="rq-source"
              value={value}
              checked={source === value}
              onChange={() => setSource(value)}
            />
            {label}
          </label>
        ))}
      </div>
      {source === "upload" && <UploadPanel onUploaded={setUploaded} />}
      {source === "existing" && <ExistingPanel selected={existing} onSelect={setExisting} />}
      {source !== "synthetic" && (
        <label class="rq-narrow">
          Items to use (blank: all)
          <NumberInput
            min={1}
            max={10000}
            value={numSamples}
            onValue={(n) => setNumSamples(n !== null && n >= 1 ? Math.floor(n) : null)}
          />
        </label>
      )}
      {source === "synthetic" && (
        <div class="rq-grid">
          <p class="hint rq-wide">
            The original's generated items for a seed (in our own wording): reasoning, adversarial and robustness items,
            each with perturbations for RS.
          </p>
          <NumberField
            label="Seed"
            value={synthetic.seed}
            min={0}
            onValue={(seed) => setSynthetic({ ...synthetic, seed })}
          />
          <NumberField
            label="Reasoning items"
            value={synthetic.num_reasoning}
            min={0}
            max={1000}
            onValue={(n) => setSynthetic({ ...synthetic, num_reasoning: n })}
          />
          <NumberField
            label="Adversarial items"
            value={synthetic.num_adversarial}
            min={0}
            max={1000}
            onValue={(n) => setSynthetic({ ...synthetic, num_adversarial: n })}
          />
          <NumberField
            label="Robustness items"
            value={synthetic.num_robustness}
            min={0}
            max={1000}
            onValue={(n) => setSynthetic({ ...synthetic, num_robustness: n })}
          />
        </div>
      )}
    </section>
  );
}

function UploadPanel({ onUploaded }: { onUploaded: (ds: Dataset | null) => void }) {
  const [file, setFile] = useState<{ name: string; text: string } | null>(null);
  const [format, setFormat] = useState<UploadFormat>("csv");
  const [name, setName] = useState("");
  const [perturbations, setPerturbations] = useState(false);
  const [upload, setUpload] = useState<Upload>({ state: "idle" });

  const preview = useMemo((): Preview | { error: string } | null => {
    if (!file) return null;
    try {
      return previewDataset(file.text, format);
    } catch (e) {
      return { error: (e as Error).message };
    }
  }, [file, format]);

  // Every change of the file or its options is uploaded at once: the API validates the whole file, so its
  // answer (the stored dataset, or the rows it refuses) shows next to the preview.
  useEffect(() => {
    onUploaded(null);
    if (!file || !name.trim()) return setUpload({ state: "idle" });
    let stale = false;
    let body;
    try {
      body = uploadBody(name.trim(), format, file.text, { perturbationsColumn: perturbations });
    } catch (e) {
      return setUpload({
        state: "failed",
        message: `Not uploaded: the file is not valid JSON (${(e as Error).message}).`,
      });
    }
    setUpload({ state: "uploading" });
    call(uploadReasoningQualityDataset({ client, body })).then(
      (dataset) => {
        if (stale) return;
        setUpload({ state: "done", dataset });
        onUploaded(dataset);
      },
      (e: Error) => !stale && setUpload({ state: "failed", message: e.message }),
    );
    return () => {
      stale = true;
    };
  }, [file, format, name, perturbations]);

  const choose = async (input: HTMLInputElement) => {
    const f = input.files?.[0];
    if (!f) return setFile(null);
    const text = await f.text();
    setFormat(formatOfFile(f.name));
    setName(datasetNameOf(f.name));
    setFile({ name: f.name, text });
  };

  const hasPerturbationColumn = !!preview && "columns" in preview && preview.columns.includes("perturbations");
  return (
    <div class="rq-upload">
      <div class="rq-grid">
        <label>
          Dataset file
          <input
            type="file"
            accept=".csv,.json,text/csv,application/json"
            onChange={(e) => void choose(e.currentTarget)}
          />
        </label>
        <label>
          Format
          <select value={format} onChange={(e) => setFormat(e.currentTarget.value as UploadFormat)}>
            {UPLOAD_FORMATS.map((f) => (
              <option key={f.value} value={f.value}>
                {f.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Dataset name
          <input type="text" maxLength={100} value={name} onChange={(e) => setName(e.currentTarget.value)} />
        </label>
      </div>
      {format === "csv" && (
        <label class="check">
          <input
            type="checkbox"
            checked={perturbations}
            disabled={!hasPerturbationColumn && !perturbations}
            onChange={(e) => setPerturbations(e.currentTarget.checked)}
          />
          <span>
            Read the <code>perturbations</code> column (a JSON array, or values separated by |)
          </span>
        </label>
      )}
      {format === "csv" && !hasPerturbationColumn && (
        <p class="hint">
          A CSV maps only its question and answer columns, so RS (robustness) is skipped for its items; a JSON file can
          carry perturbations.
        </p>
      )}
      {preview && <PreviewTable preview={preview} />}
      <p
        class="rq-upload-status"
        aria-live="polite"
        data-state={upload.state}
        data-dataset={upload.state === "done" ? upload.dataset.id : undefined}
      >
        {upload.state === "uploading" && "Uploading…"}
        {upload.state === "done" && (
          <>
            Uploaded <code>{upload.dataset.id}</code>: {upload.dataset.n_items} items, tagged{" "}
            {upload.dataset.datasets.join(", ")}.
          </>
        )}
      </p>
      {upload.state === "failed" && (
        <p role="alert" class="error">
          {upload.message}
        </p>
      )}
    </div>
  );
}

function PreviewTable({ preview }: { preview: Preview | { error: string } }) {
  if ("error" in preview)
    return (
      <p role="alert" class="error">
        {preview.error}
      </p>
    );
  return (
    <div class="rq-preview">
      <h3>Preview</h3>
      <p class="rq-count" data-count={preview.count}>
        {preview.count} {preview.count === 1 ? "row" : "rows"}
        {preview.rows.length < preview.count ? `, the first ${preview.rows.length} shown` : ""}
        {preview.note ? ` (${preview.note})` : ""}
      </p>
      <div class="table-wrap">
        <table class="rq-preview-table">
          <thead>
            <tr>
              {preview.columns.map((c, j) => (
                <th key={j} scope="col">
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {preview.rows.map((r, i) => (
              <tr key={i}>
                {preview.columns.map((_, j) => (
                  <td key={j}>{r[j] ?? ""}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

function ExistingPanel({ selected, onSelect }: { selected: Dataset | null; onSelect: (ds: Dataset | null) => void }) {
  const [datasets, setDatasets] = useState<Dataset[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    call(listReasoningQualityDatasets({ client, query: { limit: 100 } })).then(
      (page) => setDatasets(page.data),
      (e: Error) => setError(e.message),
    );
  }, []);
  if (error)
    return (
      <p role="alert" class="error">
        {error}
      </p>
    );
  if (!datasets) return <p>Loading…</p>;
  if (datasets.length === 0) return <p class="hint">No datasets uploaded yet.</p>;
  return (
    <label>
      Uploaded dataset
      <select
        value={selected?.id ?? ""}
        onChange={(e) => onSelect(datasets.find((d) => d.id === e.currentTarget.value) ?? null)}
      >
        <option value="">choose one</option>
        {datasets.map((d) => (
          <option key={d.id} value={d.id}>
            {d.name} ({d.format}, {d.n_items} items, {d.id})
          </option>
        ))}
      </select>
    </label>
  );
}

export function NumberField({
  label,
  value,
  min,
  max,
  step,
  onValue,
}: {
  label: string;
  value: number;
  min?: number;
  max?: number;
  step?: number;
  onValue: (v: number) => void;
}) {
  return (
    <label>
      {label}
      <NumberInput value={value} min={min} max={max} step={step ?? 1} onValue={(n) => n !== null && onValue(n)} />
    </label>
  );
}
