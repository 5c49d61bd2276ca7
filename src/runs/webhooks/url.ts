import { destinationProblem, webhookPolicy } from "../../net/destination.ts";

/**
 * Why `raw` may not be a run's `webhook_url`, or null. Targets must be https and public (the
 * destination policy in net/destination.ts); plain http is accepted only for loopback hosts, and
 * only where `allowLoopback` holds (ALLOW_LOOPBACK_DESTINATIONS, local development), so a deployment
 * cannot be pointed at its own network. The same check runs again before every delivery.
 */
export function webhookUrlProblem(raw: string, allowLoopback: boolean): string | null {
  return destinationProblem(raw, webhookPolicy(allowLoopback));
}
