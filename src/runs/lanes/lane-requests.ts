// A lane's requests to other Durable Objects (its run's coordinator, its endpoint's limiter), counted
// for the lane's log line and `npm run bench`. Each is also a subrequest of the lane's invocation,
// charged by the counted bindings (src/platform/counted-env.ts), as a model call is by its fetch.
import type { UnitMessage } from "./messages.ts";
import type { NextUnit, RunCoordinator, UnitContextReply, UnitSample } from "../coordinator/run-coordinator.ts";
import type { LimiterStub } from "../limiter/endpoint-gate.ts";
import type { ModelCalls } from "./model-calls.ts";

/** What one activation of a lane did, logged when it ends (for operators, and `npm run bench`). */
export type LaneStats = { units: number; modelRequests: number; limiterRequests: number; coordinatorRequests: number };

export function noStats(): LaneStats {
  return { units: 0, modelRequests: 0, limiterRequests: 0, coordinatorRequests: 0 };
}

/** The coordinator's methods a lane calls, each counted. */
export function countedCoordinator(stub: DurableObjectStub<RunCoordinator>, stats: () => LaneStats) {
  const counted =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> => {
      stats().coordinatorRequests++;
      return call(...args);
    };
  return {
    // RPC types cannot express an `unknown` config; the reply is exactly UnitContextReply.
    unitContext: counted(
      (unitId: string, attempt: number) => stub.unitContext(unitId, attempt) as Promise<UnitContextReply | null>,
    ),
    laneUnit: counted((lane: number): Promise<UnitMessage | null> => stub.laneUnit(lane)),
    unitDone: counted(
      (unitId: string, attempt: number, sample: UnitSample): Promise<NextUnit | null> =>
        stub.unitDone(unitId, attempt, sample),
    ),
    unitFailed: counted(
      (unitId: string, attempt: number, error: string, calls?: ModelCalls): Promise<NextUnit | null> =>
        stub.unitFailed(unitId, attempt, error, calls),
    ),
    saveCheckpoint: counted(
      (unitId: string, attempt: number, state: string): Promise<boolean> => stub.saveCheckpoint(unitId, attempt, state),
    ),
    checkpointOf: counted((unitId: string): Promise<string | null> => stub.checkpointOf(unitId)),
  };
}

/** A limiter whose every request is counted. */
export function countedLimiter(stub: LimiterStub, stats: () => LaneStats): LimiterStub {
  const count = () => {
    stats().limiterRequests++;
  };
  return {
    acquire: (leaseMs, opening) => (count(), stub.acquire(leaseMs, opening)),
    renew: (id, latencies, leaseMs) => (count(), stub.renew(id, latencies, leaseMs)),
    release: (id, outcome, latencies) => (count(), stub.release(id, outcome, latencies)),
  };
}
