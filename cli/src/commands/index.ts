// The verbs of `assay`, in the order `assay --help` lists them. An evaluator's verbs are one folder,
// commands/<evaluator>/ (its index.ts exports `register`; its file formats sit beside it), and its import
// and its entry here, a line each; test/cli/toy-evaluator.test.ts proves it with a sixth evaluator.
import type { Command } from "commander";
import { register as vrty } from "./vrty/index.ts";
import { register as chainDeterminism } from "./chain-determinism/index.ts";
import { register as rpl } from "./rpl/index.ts";
import { register as judge } from "./judge/index.ts";
import { register as reasoningQuality } from "./reasoning-quality/index.ts";
import { register as compare } from "./compare.ts";
import { register as runs } from "./runs.ts";
import { register as datasets } from "./reasoning-quality/datasets.ts";
import { register as suites } from "./chain-determinism/suites.ts";
import { register as providers } from "./providers.ts";
import { register as prompts } from "./prompts.ts";
import { register as usage } from "./usage.ts";
import { register as admin } from "./admin.ts";

/** Adds a command (with its subcommands) to the program. */
export type Register = (program: Command) => void;

export const COMMANDS: Register[] = [
  vrty,
  chainDeterminism,
  rpl,
  judge,
  reasoningQuality,
  compare,
  runs,
  datasets,
  suites,
  providers,
  prompts,
  usage,
  admin,
];
