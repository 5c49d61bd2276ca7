import { ProviderError, type ChatClient, type EmbeddingClient, type RetryInfo } from "../../providers/index.ts";

/**
 * The model calls of a unit (or of an aggregate) as the endpoints saw them: `requests`, the HTTP
 * requests sent (retries and failed ones included; the `sim:*` simulator sends none); `retries`, the
 * requests after the first of each call; `rateLimited`, the answers that were a rate limit (429).
 */
export type ModelCalls = { requests: number; retries: number; rateLimited: number };

export function noCalls(): ModelCalls {
  return { requests: 0, retries: 0, rateLimited: 0 };
}

/** Adds `more` into `into` (absent counts add nothing) and returns `into`. */
export function addCalls(into: ModelCalls, more: Partial<ModelCalls> | null | undefined): ModelCalls {
  into.requests += more?.requests ?? 0;
  into.retries += more?.retries ?? 0;
  into.rateLimited += more?.rateLimited ?? 0;
  return into;
}

/**
 * Counts the calls made through the clients it wraps, in the platform rather than in each evaluator,
 * from what the one retry policy (providers/retry.ts) reports: a call's answer or final error carries
 * `attempts`, and `onRetry` sees each attempt that is tried again (the only place an earlier attempt's
 * 429 shows). So a client must be made with `onRetry: tally.onRetry` for its 429s to be counted; the
 * hook reads `calls` when it fires, so one client can serve a tally that is `reset` between units.
 */
export class CallTally {
  calls: ModelCalls = noCalls();

  /** For `createOpenAIClient`/`createOpenAIEmbeddingClient`: an attempt that answered 429 and is retried. */
  readonly onRetry = (info: RetryInfo): void => {
    if (info.error.kind === "rate_limit") this.calls.rateLimited++;
  };

  /** Starts a new count; returns the one that ends. */
  reset(): ModelCalls {
    const ended = this.calls;
    this.calls = noCalls();
    return ended;
  }

  /**
   * `attempts` is what the retry policy reports: the HTTP requests the call took. A call without it
   * sent none (the simulator, or a call stopped before it was sent) and counts nothing; so does a
   * cancel's abort (its sample is discarded anyway).
   */
  private settled(attempts: number | undefined, error?: unknown): void {
    if (!attempts) return;
    this.calls.requests += attempts;
    this.calls.retries += attempts - 1;
    // The last attempt's 429 is not retried, so onRetry did not see it.
    if (error instanceof ProviderError && error.kind === "rate_limit") this.calls.rateLimited++;
  }

  private async count<T extends { attempts?: number }>(call: () => Promise<T>): Promise<T> {
    try {
      const response = await call();
      this.settled(response.attempts);
      return response;
    } catch (err) {
      this.settled(err instanceof ProviderError ? err.attempts : undefined, err);
      throw err;
    }
  }

  chat(client: ChatClient): ChatClient {
    return { chat: (request, options) => this.count(() => client.chat(request, options)) };
  }

  embeddings(client: EmbeddingClient): EmbeddingClient {
    return { embed: (request, options) => this.count(() => client.embed(request, options)) };
  }
}
