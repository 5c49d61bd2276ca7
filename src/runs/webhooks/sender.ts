import { DurableObject } from "cloudflare:workers";
import {
  deliverWebhook,
  WEBHOOK_MAX_ATTEMPTS,
  webhookRetryDelaySeconds,
  type DeliveryOutcome,
  type RunEventMessage,
} from "./deliver.ts";
import { invocationsOf } from "../../platform/invocation.ts";
import { guardStoredText } from "../../platform/storage-guard.ts";
import { countedEnv } from "../../platform/counted-env.ts";

/** An attempt that could not be made at all (D1 unavailable) is tried again this much later, this many times. */
const UNAVAILABLE_RETRY_MS = 30_000;
const UNAVAILABLE_MAX = 20;

/** WEBHOOK_BACKOFF_SECONDS, or its default of 5 when unset or not a number. */
function backoffBase(setting: string | undefined): number {
  const n = Number(setting);
  return setting !== undefined && Number.isFinite(n) && n >= 0 ? n : 5;
}

/** What a sender keeps in its storage: one message and where its sending stands. */
type Pending = {
  message: RunEventMessage;
  /** The next attempt's number, counted over the message's life (a re-send goes on counting). */
  next: number;
  /** The attempt after which the current series gives up. */
  last: number;
  /** When the next attempt is due, or null when none is (delivered, given up, refused). */
  due: number | null;
  /** Bumped by every `send`, so an attempt in flight during a re-send does not cancel it. */
  series: number;
  /** Consecutive alarms that could not make their attempt. */
  unavailable: number;
};

/**
 * Sends one webhook message (one per `webhook-id`, e.g. `msg_final_<run id>`): every attempt is this
 * object's alarm. So the schedule of a message is durable (storage and alarm survive a crash, a
 * deploy and a restart of the local server, where a Queue's delayed retry lives only in memory), and
 * each message waits on its own receiver alone: a receiver that hangs holds one object's alarm for its
 * 10 s, while every other message is sent by its own object (a Queue consumer would hold the next
 * batch, and locally the whole queue, until it gave up).
 */
export class WebhookSender extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, countedEnv(env));
  }

  /**
   * Sends the message now, starting a series of up to WEBHOOK_MAX_ATTEMPTS attempts with backoff.
   * Called again for the same message (a re-send, a finish that ran twice), it starts a new series at
   * once; the attempt numbers go on from the last one, so the delivery list stays in order.
   */
  async send(message: RunEventMessage): Promise<void> {
    const rec = (await this.ctx.storage.get<Pending>("pending")) ?? {
      message,
      next: 1,
      last: 0,
      due: null,
      series: 0,
      unavailable: 0,
    };
    const now = Date.now();
    Object.assign(rec, {
      message,
      last: rec.next - 1 + WEBHOOK_MAX_ATTEMPTS,
      due: now,
      series: rec.series + 1,
      unavailable: 0,
    });
    await this.save(rec);
    await this.ctx.storage.setAlarm(now);
  }

  /** Where the message stands (for tests and operators): null if this object never had one. */
  async status(): Promise<Pending | null> {
    return (await this.ctx.storage.get<Pending>("pending")) ?? null;
  }

  async alarm(): Promise<void> {
    const rec = await this.ctx.storage.get<Pending>("pending");
    if (!rec || rec.due === null) return;
    if (rec.due > Date.now()) return this.ctx.storage.setAlarm(rec.due);
    const { next: attempt, series } = rec;
    let outcome: DeliveryOutcome | null = null;
    try {
      outcome = await deliverWebhook(this.env, rec.message, attempt);
    } catch (err) {
      // Not an attempt (nothing was recorded, maybe nothing sent): the same attempt is made again
      // later, rather than leave it to the runtime's few alarm retries and strand the message.
      console.error(
        JSON.stringify({
          level: "error",
          run_id: rec.message.runId,
          message_id: rec.message.messageId,
          attempt,
          error: `webhook attempt not made: ${String(err)}`,
        }),
      );
    }
    // Read again: a `send` may have come in while the receiver had the request; it set its own due
    // time and alarm, which stand.
    const after = (await this.ctx.storage.get<Pending>("pending"))!;
    if (outcome === null) {
      after.unavailable += 1;
      if (after.series === series)
        after.due = after.unavailable >= UNAVAILABLE_MAX ? null : Date.now() + UNAVAILABLE_RETRY_MS;
    } else {
      after.next = attempt + 1;
      after.unavailable = 0;
      // A re-send's series starts with the attempt after this one.
      if (after.series !== series) after.last = attempt + WEBHOOK_MAX_ATTEMPTS;
      else {
        // The attempt's place in its series: the first retry waits the base delay, then it doubles.
        const inSeries = attempt - (after.last - WEBHOOK_MAX_ATTEMPTS);
        const base = backoffBase(this.env.WEBHOOK_BACKOFF_SECONDS);
        after.due =
          outcome === "failed" && attempt < after.last
            ? Date.now() + webhookRetryDelaySeconds(inSeries, base) * 1000
            : null;
      }
    }
    await this.save(after);
    if (after.series === series && after.due !== null) await this.ctx.storage.setAlarm(after.due);
  }

  /** Stores the message's record, checked as production checks a stored value (a run event: small). */
  private save(rec: Pending): Promise<void> {
    guardStoredText("durableObjectValueBytes", "the webhook sender's pending message", JSON.stringify(rec));
    return this.ctx.storage.put("pending", rec);
  }
}

// Each RPC call and alarm is an invocation of its own, with its own D1 and subrequest budget.
invocationsOf(WebhookSender, "webhook", ["send", "status", "alarm"]);
