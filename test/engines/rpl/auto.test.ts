import { describe, expect, it } from "vitest";
import { autoStages, decideStage, stageId } from "../../../src/engines/rpl/index.ts";

const stages = autoStages(16);
const ok = { ci_width: 0.15, stability_score: 0.8, imbalance_ratio: 1 };

describe("Auto-RPL policy", () => {
  it("has the original's stages, shrunk to a small bank", () => {
    expect(stages).toEqual([
      { T: 8, K: 8, R: 2 },
      { T: 16, K: 16, R: 2 },
      { T: 16, K: 16, R: 3 },
    ]);
    expect(autoStages(12)).toEqual([
      { T: 8, K: 8, R: 2 },
      { T: 12, K: 12, R: 2 },
      { T: 12, K: 12, R: 3 },
    ]);
  });

  it("stops when every gate passes, at the boundaries too", () => {
    expect(decideStage(0, stages, ok).decision).toBe("stop_pass");
    expect(decideStage(0, stages, { ci_width: 0.2, stability_score: 0.7, imbalance_ratio: 1.5 }).decision).toBe(
      "stop_pass",
    );
  });

  it("escalates with the failing gates named, and stops at the limits after the last stage", () => {
    const d = decideStage(0, stages, { ...ok, ci_width: 0.21, stability_score: 0.69 });
    expect(d.decision).toBe("escalate_to_T16_K16_R2");
    expect(d.failing).toEqual(["ci_width", "stability"]);
    expect(d.reason).toBe("failing gates: ci_width, stability");
    expect(decideStage(1, stages, { ...ok, imbalance_ratio: 1.6 }).decision).toBe("escalate_to_T16_K16_R3");
    expect(decideStage(2, stages, { ...ok, ci_width: 0.5 }).decision).toBe("stop_limits");
  });

  it("warns above an imbalance of 1.25 without failing", () => {
    const d = decideStage(0, stages, { ...ok, imbalance_ratio: 1.3 });
    expect(d.decision).toBe("stop_pass");
    expect(d.warnings).toHaveLength(1);
  });

  it("names stages S{i}- plus 8 hex of sha256(claim|model|K=..|R=..)", async () => {
    // sha256("c|m|K=8|R=2") computed independently with WebCrypto below.
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode("c|m|K=8|R=2"));
    const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
    expect(await stageId(1, "c", "m", stages[0])).toBe(`S1-${hex.slice(0, 8)}`);
  });
});
