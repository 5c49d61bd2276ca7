import { useEffect, useState } from "preact/hooks";
import type { DashboardSession } from "@assay/sdk";
import { href, useRoute } from "./route.ts";
import { currentSession, signOut, SignIn } from "./session.tsx";
import { RunsPage } from "./pages/runs.tsx";
import { RunPage } from "./pages/run.tsx";
import { NewRunPage } from "./pages/new-run.tsx";
import { ConnectionsPage } from "./pages/connections.tsx";
import { ComparePage } from "./pages/compare.tsx";
import { StoragePage } from "./pages/storage.tsx";
import { evaluators } from "./evaluators/index.ts";

export function App() {
  const [session, setSession] = useState<DashboardSession | null | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    currentSession().then(setSession, (e: Error) => setError(e.message));
  }, []);
  if (error)
    return (
      <main class="page">
        <p role="alert" class="error">
          {error}
        </p>
      </main>
    );
  if (session === undefined)
    return (
      <main class="page">
        <p>Loading…</p>
      </main>
    );
  if (session === null) return <SignIn onSignedIn={setSession} />;
  return <SignedIn session={session} onSignedOut={() => setSession(null)} />;
}

function SignedIn({ session, onSignedOut }: { session: DashboardSession; onSignedOut: () => void }) {
  const route = useRoute();
  return (
    <>
      <header class="top">
        <a class="brand" href={href.runs()}>
          assay
        </a>
        <nav>
          <a href={href.runs()} aria-current={route.page === "runs" || route.page === "run" ? "page" : undefined}>
            Runs
          </a>
          <details class="menu">
            <summary>New run</summary>
            <ul>
              {evaluators.withRuns().map((e) => (
                <li key={e.name}>
                  <a href={href.newRun(e.name)}>{e.title}</a>
                </li>
              ))}
            </ul>
          </details>
          <a href={href.compare()} aria-current={route.page === "compare" ? "page" : undefined}>
            Compare
          </a>
          {evaluators.all().map(
            ({ name, title, Page }) =>
              Page && (
                <a
                  key={name}
                  href={href.evaluatorPage(name)}
                  aria-current={route.page === "evaluator" && route.name === name ? "page" : undefined}
                >
                  {title}
                </a>
              ),
          )}
          <a href={href.connections()} aria-current={route.page === "connections" ? "page" : undefined}>
            Connections
          </a>
          <a href={href.storage()} aria-current={route.page === "storage" ? "page" : undefined}>
            Storage
          </a>
        </nav>
        <span class="who">{session.tenant.name}</span>
        <button type="button" class="link" onClick={() => signOut().then(onSignedOut)}>
          Sign out
        </button>
      </header>
      <main class="page">
        {route.page === "runs" && <RunsPage />}
        {route.page === "run" && <RunPage id={route.id} />}
        {route.page === "new" && <NewRunPage evaluator={route.evaluator} />}
        {route.page === "evaluator" && <EvaluatorPage name={route.name} />}
        {route.page === "connections" && <ConnectionsPage />}
        {route.page === "storage" && <StoragePage />}
        {route.page === "compare" && <ComparePage base={route.base} head={route.head} />}
      </main>
    </>
  );
}

/** An evaluator's page of its own (`#/<name>`: vrty's playground); any other path shows the runs. */
function EvaluatorPage({ name }: { name: string }) {
  const Page = evaluators.get(name)?.Page;
  return Page ? <Page /> : <RunsPage />;
}
