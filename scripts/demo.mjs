#!/usr/bin/env node
// The Quick start demo: runs pi-session (the built CLI bundle) over the bundled example
// sessions in examples/sessions/ and prints what each command shows. Any failing command
// fails the demo.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const cli = join(root, "apps", "cli", "dist", "pi-session.cjs");
const sessions = join(root, "examples", "sessions");

const files = readdirSync(sessions, { recursive: true })
  .map(String)
  .filter((f) => f.endsWith(".jsonl"))
  .sort()
  .map((f) => relative(root, join(sessions, f)));
const v3 = files.find((f) => f.includes("019a4c1e"));

const steps = [
  ["ls", "--all", "--session-dir", "examples/sessions"],
  ["validate", ...files],
  ["tree", v3],
  ["show", v3],
  ["context", v3],
  ["stats", "--all", "--session-dir", "examples/sessions", "--by", "model"],
];

for (const args of steps) {
  process.stdout.write(
    `\n$ pi-session ${args.map((a) => (a.includes(" ") ? JSON.stringify(a) : a)).join(" ")}\n`,
  );
  const r = spawnSync(process.execPath, [cli, ...args], { cwd: root, stdio: "inherit", env: process.env });
  if (r.status !== 0) {
    process.stderr.write(`demo: 'pi-session ${args[0]}' exited with ${r.status}\n`);
    process.exit(1);
  }
}
