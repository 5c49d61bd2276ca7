import { describe, expect, it } from "vitest";
import { ProviderError, retrying, type AttemptOutcome, type CallGate } from "../../src/providers/index.ts";
import { callDeadlineMs } from "../../src/providers/retry.ts";

const rateLimited = (retryAfterMs?: number) =>
  new ProviderError({ name: "RateLimitError", kind: "rate_limit", status: 429, message: "429", retryAfterMs });
const overloaded = () =>
  new ProviderError({ name: "InternalServerError", kind: "transient", status: 529, message: "Overloaded" });
const badRequest = () =>
  new ProviderError({ name: "BadRequestError", kind: "bad_request", status: 400, message: "400" });

/** A gate that records every permit's outcome and absorbs overloads while `absorb` says so. */
function recordingGate(absorb: (n: number) => boolean) {
  const outcomes: AttemptOutcome[] = [];
  let acquired = 0;
  const gate: CallGate = {
    acquire: async () => {
      acquired++;
      return {
        release: async (o) => (outcomes.push(o), { absorbed: o.kind === "overload" && absorb(outcomes.length) }),
      };
    },
  };
  return { gate, outcomes, acquired: () => acquired };
}

/** Answers from a script: an error to throw, or "ok". */
function scripted(script: (ProviderError | "ok")[]) {
  let i = 0;
  return async () => {
    const step = script[i++];
    if (step === "ok") return { attempts: undefined as number | undefined };
    throw step;
  };
}

const sleeps: number[] = [];
const policy = (gate: CallGate, maxRetries = 2) => ({
  maxRetries,
  gate,
  sleep: async (ms: number) => void sleeps.push(ms),
  random: () => 0,
  now: () => 0,
});

describe("the retry policy through a gate", () => {
  it("holds a permit for every attempt and reports each outcome", async () => {
    const g = recordingGate(() => false);
    const r = await retrying(scripted([rateLimited(0), "ok"]), policy(g.gate));
    expect(r.attempts).toBe(2);
    expect(g.acquired()).toBe(2);
    await Promise.resolve();
    expect(g.outcomes).toEqual([
      { kind: "overload", retryAfterMs: 0 },
      { kind: "ok", latencyMs: 0 },
    ]);
  });

  it("absorbed overloads do not use up the call's retries", async () => {
    const g = recordingGate(() => true);
    // Five refusals the limiter took as its own window's doing, then an answer: with maxRetries 2 this would fail without the gate.
    const r = await retrying(
      scripted([rateLimited(), rateLimited(), overloaded(), rateLimited(), rateLimited(), "ok"]),
      policy(g.gate),
    );
    expect(r.attempts).toBe(6);
  });

  it("refusals the limiter did not absorb count as usual", async () => {
    const g = recordingGate(() => false);
    await expect(
      retrying(scripted([rateLimited(), rateLimited(), rateLimited(), "ok"]), policy(g.gate)),
    ).rejects.toMatchObject({ attempts: 3, kind: "rate_limit" });
  });

  it("an absorbed retry waits what the endpoint asked for", async () => {
    sleeps.length = 0;
    const g = recordingGate(() => true);
    await retrying(scripted([rateLimited(1500), "ok"]), policy(g.gate));
    expect(sleeps).toEqual([1500]);
  });

  it("other failures are reported as errors and not absorbed", async () => {
    const g = recordingGate(() => true);
    await expect(retrying(scripted([badRequest()]), policy(g.gate))).rejects.toMatchObject({ attempts: 1 });
    expect(g.outcomes).toEqual([{ kind: "error" }]);
  });

  describe("within the call's deadline", () => {
    // A clock that only the attempts (1 s each, the timeout) and the waits move.
    const timed = (script: (ProviderError | "ok")[]) => {
      let t = 0;
      const once = scripted(script);
      const attempt = async () => {
        t += 1000;
        return once();
      };
      return {
        attempt,
        policy: (gate: CallGate) => ({
          maxRetries: 2,
          gate,
          random: () => 0,
          now: () => t,
          sleep: async (ms: number) => void (t += ms),
          deadline: { ms: callDeadlineMs(1000), attemptMs: 1000 },
        }),
      };
    };

    it("makes every counted retry with the longest waits it honours (the deadline is their sum)", async () => {
      const c = timed([rateLimited(60_000), rateLimited(60_000), "ok"]);
      const r = await retrying(c.attempt, c.policy(recordingGate(() => false).gate));
      expect(r.attempts).toBe(3);
    });

    it("stops absorbing 429s when another attempt could answer after the deadline", async () => {
      // 1 s + 60 s + 1 s + 60 s + 1 s = 123 s = callDeadlineMs(1000): a fourth attempt would end at 185 s.
      const c = timed([...Array.from({ length: 10 }, () => rateLimited(60_000)), "ok"]);
      await expect(retrying(c.attempt, c.policy(recordingGate(() => true).gate))).rejects.toMatchObject({
        attempts: 3,
        kind: "rate_limit",
      });
    });

    it("gives back a permit granted too late and fails the call, sending nothing", async () => {
      let t = 0;
      const released: AttemptOutcome[] = [];
      const slowGate: CallGate = {
        acquire: async () => {
          t += callDeadlineMs(1000); // the endpoint's queue held the call past its deadline
          return { release: async (o) => (released.push(o), { absorbed: false }) };
        },
      };
      let sent = 0;
      const once = async () => (sent++, { attempts: undefined as number | undefined });
      await expect(
        retrying(once, {
          maxRetries: 2,
          gate: slowGate,
          now: () => t,
          deadline: { ms: callDeadlineMs(1000), attemptMs: 1000 },
        }),
      ).rejects.toMatchObject({ kind: "timeout", attempts: 0 });
      expect(sent).toBe(0);
      expect(released).toEqual([{ kind: "canceled" }]);
    });

    it("stops waiting for a permit when the call's time is up", async () => {
      // A permit that never comes: only the deadline (here 5 ms to start an attempt) ends the wait.
      const never: CallGate = {
        acquire: (signal) =>
          new Promise((_, reject) => signal?.addEventListener("abort", () => reject(signal.reason), { once: true })),
      };
      const once = async () => ({ attempts: undefined as number | undefined });
      await expect(
        retrying(once, { maxRetries: 2, gate: never, deadline: { ms: 1005, attemptMs: 1000 } }),
      ).rejects.toMatchObject({ kind: "timeout", attempts: 0 });
    });
  });
});
