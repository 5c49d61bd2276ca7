// The vrty playground: one pair scored as you type, and a JSONL batch shown as a distribution. Both use
// the IDF table chosen here (the built-in one, or one the tenant uploaded).
import { useEffect, useState } from "preact/hooks";
import { listIdfTables, type IdfTable } from "@assay/sdk";
import { call, client } from "../../api.ts";
import { Playground } from "./playground.tsx";
import { BatchUpload } from "./batch-upload.tsx";
import "./vrty.css";

export function VrtyPage() {
  const [tables, setTables] = useState<IdfTable[]>([]);
  const [table, setTable] = useState("default");
  useEffect(() => {
    call(listIdfTables({ client, query: { limit: 100 } })).then(
      (page) => setTables(page.data),
      () => setTables([]),
    );
  }, []);
  const custom = tables.filter((t) => t.id !== "default");
  return (
    <div class="vrty">
      <h1>vrty playground</h1>
      <p class="hint">
        Relevance, coherence, completeness and conciseness of a response to its prompt, and their weighted composite. No
        model is called: the same text always gets the same scores.
      </p>
      {custom.length > 0 && (
        <label class="vrty-table">
          IDF table
          <select value={table} onChange={(e) => setTable(e.currentTarget.value)}>
            <option value="default">built-in</option>
            {custom.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name} ({t.n_docs} documents)
              </option>
            ))}
          </select>
        </label>
      )}
      <Playground idfTable={table} />
      <BatchUpload idfTable={table} />
    </div>
  );
}
