import { it, expect } from "vitest";
it("node", () => { expect(typeof process.version).toBe("string"); });
