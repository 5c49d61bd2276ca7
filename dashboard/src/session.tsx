// Sign-in with an API key. The key goes once to POST /v1/session, which answers with an HttpOnly cookie
// and a CSRF token; the page forgets the key at once (the field is cleared, nothing is stored), and a
// reload asks GET /v1/session who is signed in (only if the sign-in hint cookie says someone may be).
// Signing out deletes the session on the server.
import { useState } from "preact/hooks";
import { createSession, deleteSession, getSession, type DashboardSession } from "@assay/sdk";
import { ApiFailure, call, client, setCsrfToken } from "./api.ts";

/**
 * The server sets this cookie beside the HttpOnly session at sign-in and clears it at sign-out
 * (src/routes/session-hint.ts): with it absent nobody signed in here, and the page does not ask, so a
 * signed-out load makes no request that fails.
 */
const SIGNED_IN_HINT = "assay_signed_in";

function hinted(): boolean {
  return document.cookie.split("; ").includes(`${SIGNED_IN_HINT}=1`);
}

export async function currentSession(): Promise<DashboardSession | null> {
  if (!hinted()) return null;
  try {
    const s = await call(getSession({ client }));
    setCsrfToken(s.csrf_token);
    return s;
  } catch (err) {
    if (!(err instanceof ApiFailure && err.status === 401)) throw err;
    // The session ended elsewhere (expired, its key revoked): forget the hint, so the next load is quiet.
    // biome-ignore lint/suspicious/noDocumentCookie: one fixed string clears one cookie; the Cookie Store API is not in every browser we serve.
    document.cookie = `${SIGNED_IN_HINT}=; Max-Age=0; Path=/; SameSite=Strict`;
    return null;
  }
}

export async function signOut(): Promise<void> {
  await call(deleteSession({ client }));
  setCsrfToken(null);
}

export function SignIn({ onSignedIn }: { onSignedIn: (s: DashboardSession) => void }) {
  const [key, setKey] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const s = await call(createSession({ client, body: { api_key: key } }));
      setKey("");
      setCsrfToken(s.csrf_token);
      onSignedIn(s);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="signin">
      <h1>assay</h1>
      <p>LLM evaluations: sign in with an API key of this server.</p>
      <form onSubmit={submit} autocomplete="off">
        <label>
          API key
          <input
            type="password"
            name="api_key"
            value={key}
            onInput={(e) => setKey(e.currentTarget.value)}
            autocomplete="off"
            spellcheck={false}
            required
          />
        </label>
        <button type="submit" disabled={busy || !key}>
          Sign in
        </button>
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
      </form>
      <p class="hint">Running locally? The dev key is in the README's Setup table.</p>
    </main>
  );
}
