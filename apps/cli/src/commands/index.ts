/**
 * The command table, in the order `pi-session --help` lists them.
 */
import type { CommandSpec } from "../program.js";
import { context } from "./context.js";
import { ls } from "./ls.js";
import { migrate } from "./migrate.js";
import { rm } from "./rm.js";
import { show } from "./show.js";
import { stats } from "./stats.js";
import { tree } from "./tree.js";
import { validate } from "./validate.js";
import { fork, label, name } from "./write.js";

export const COMMANDS: CommandSpec[] = [
  ls,
  show,
  tree,
  context,
  validate,
  migrate,
  stats,
  fork,
  name,
  label,
  rm,
];
