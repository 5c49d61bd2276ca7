// Saved provider connections (/v1/providers): an endpoint and its key stored once, encrypted, never shown
// again; run forms offer them next to the simulator. The key field is a password field, cleared on save.
import { useEffect, useState } from "preact/hooks";
import {
  createProviderConnection,
  deleteProviderConnection,
  listProviderConnections,
  replaceProviderConnection,
  type ProviderConnection,
} from "@assay/sdk";
import { allPages } from "@assay/sdk/pages";
import { call, client } from "../api.ts";
import { age } from "../live.ts";

export function ConnectionsPage() {
  const [items, setItems] = useState<ProviderConnection[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = async () => {
    setItems(await allPages((after) => call(listProviderConnections({ client, query: { limit: 100, after } }))));
  };
  useEffect(() => {
    load().catch((e: Error) => setError(e.message));
  }, []);
  const remove = async (name: string) => {
    try {
      await call(deleteProviderConnection({ client, path: { name } }));
      await load();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <section>
      <h1>Provider connections</h1>
      <p class="hint">
        An OpenAI-compatible endpoint and its key, saved once for your tenant and encrypted; runs name it instead of
        sending a key. The key is never shown again.
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {items === null ? (
        <p>Loading…</p>
      ) : items.length === 0 ? (
        <p>No saved connections.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th>Name</th>
                <th>Base URL</th>
                <th>Key</th>
                <th>Saved</th>
                <th></th>
              </tr>
            </thead>
            <tbody>
              {items.map((c) => (
                <tr key={c.id} data-connection={c.name}>
                  <td>{c.name}</td>
                  <td>{c.base_url}</td>
                  <td>{c.has_api_key ? (c.api_key_last4 ? `…${c.api_key_last4}` : "set") : "none"}</td>
                  <td title={c.updated_at}>{age(c.updated_at)}</td>
                  <td>
                    <button type="button" class="small" onClick={() => remove(c.name)} aria-label={`Delete ${c.name}`}>
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <SaveForm onSaved={() => load().catch((e: Error) => setError(e.message))} />
    </section>
  );
}

function SaveForm({ onSaved }: { onSaved: () => void }) {
  const [name, setName] = useState("");
  const [baseUrl, setBaseUrl] = useState("");
  const [key, setKey] = useState("");
  const [replace, setReplace] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    const body = { base_url: baseUrl, ...(key ? { api_key: key } : {}) };
    try {
      if (replace) await call(replaceProviderConnection({ client, path: { name }, body }));
      else await call(createProviderConnection({ client, body: { name, ...body } }));
      setKey("");
      setName("");
      setBaseUrl("");
      onSaved();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <form class="connection-form" onSubmit={submit} autocomplete="off">
      <h2>Save a connection</h2>
      <label>
        Name
        <input
          name="name"
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
          required
          placeholder="openrouter"
        />
      </label>
      <label>
        Base URL
        <input
          name="base_url"
          type="url"
          value={baseUrl}
          onInput={(e) => setBaseUrl(e.currentTarget.value)}
          required
          placeholder="https://openrouter.ai/api/v1"
        />
      </label>
      <label>
        API key
        <input
          name="connection_key"
          type="password"
          value={key}
          onInput={(e) => setKey(e.currentTarget.value)}
          autocomplete="new-password"
          spellcheck={false}
        />
      </label>
      <label class="inline">
        <input type="checkbox" checked={replace} onChange={(e) => setReplace(e.currentTarget.checked)} /> Replace the
        connection of that name (rotates its key)
      </label>
      <button type="submit">Save</button>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </form>
  );
}
