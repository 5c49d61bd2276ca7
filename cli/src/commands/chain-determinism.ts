import type { Command } from "commander";

export function register(program: Command): void {
  void program;
}
