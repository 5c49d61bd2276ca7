// The dashboard speaks to the API only through the generated SDK, on its own origin. After sign-in the
// browser holds an HttpOnly session cookie (the key itself is never kept by the page), and every request
// that changes something carries the session's CSRF token in a header a cross-site form cannot set.
import { createClient } from "@assay/sdk/client";

export const client = createClient({ baseUrl: location.origin, credentials: "same-origin" });

let csrfToken: string | null = null;
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

client.interceptors.request.use((request) => {
  if (csrfToken && request.method !== "GET" && request.method !== "HEAD")
    request.headers.set("X-CSRF-Token", csrfToken);
  return request;
});

/** An API error as one line: the problem's title, detail and the fields it names. */
export class ApiFailure extends Error {
  readonly status: number;
  constructor(message: string, status: number) {
    super(message);
    this.status = status;
  }
}

export function problemText(problem: unknown, status: number): string {
  if (problem && typeof problem === "object") {
    const p = problem as { title?: string; detail?: string; errors?: { path: string; message: string }[] };
    const fields = p.errors?.map((e) => `${e.path}: ${e.message}`).join("; ");
    return [p.title, p.detail].filter(Boolean).join(": ") + (fields ? ` (${fields})` : "");
  }
  return `HTTP ${status}`;
}

type SdkResult<T> = { data?: T; error?: unknown; response?: Response };

/** Awaits an SDK call; returns its data or throws an ApiFailure with the API's own words. */
export async function call<T>(request: Promise<SdkResult<T>>): Promise<T> {
  const result = await request;
  if (!result.response) throw new ApiFailure("The server cannot be reached.", 0);
  if (result.error !== undefined || !result.response.ok) {
    throw new ApiFailure(problemText(result.error, result.response.status), result.response.status);
  }
  return result.data as T;
}
