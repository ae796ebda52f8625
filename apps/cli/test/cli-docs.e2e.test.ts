/**
 * docs/cli.md against the CLI itself: every command the help lists has a section, and every long
 * option a command's `--help` shows is named in that command's section (the options every
 * command takes are in the Conventions part). Keeps the reference true as flags are added.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CliHome } from "./harness.js";

const doc = readFileSync(
  join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "docs", "cli.md"),
  "utf8",
);
const cli = new CliHome("pi-session-docs-");
afterAll(() => cli.cleanup());

/** The part of docs/cli.md headed `### \`<command> ...\``, up to the next heading of that level. */
function section(command: string): string | undefined {
  const parts = doc.split(/^(?=### `)/m);
  return parts.find((p) => p.startsWith(`### \`${command} `) || p.startsWith(`### \`${command}\``));
}

/** Options documented once for every command (docs/cli.md, Conventions). */
const GLOBAL = ["--help", "--version", "--session-dir", "--json", "--no-color", "--no-pager"];

describe("docs/cli.md", () => {
  let help: { code: number; stdout: string };
  let commands: string[];
  beforeAll(async () => {
    help = await cli.runInProcess(["--help"]);
    const listed = help.stdout.slice(help.stdout.indexOf("Commands:"), help.stdout.indexOf("Options:"));
    commands = [...listed.matchAll(/^ {2}([a-z]+)\b/gm)].map((m) => m[1] as string);
  });

  it("the help lists the commands", async () => {
    expect(help.code).toBe(0);
    expect(commands).toContain("show");
    expect(commands.length).toBeGreaterThan(10);
  });

  it("names the global options in its conventions", async () => {
    const conventions = doc.slice(doc.indexOf("## Conventions"), doc.indexOf("## Commands"));
    for (const option of GLOBAL.filter((o) => o !== "--help" && o !== "--version"))
      expect(conventions, option).toContain(option);
  });

  it("has a section for every command, naming each of its options", async () => {
    const missing: string[] = [];
    for (const command of commands) {
      const text = section(command);
      if (text === undefined) {
        missing.push(`${command}: no section`);
        continue;
      }
      const own = await cli.runInProcess([command, "--help"]);
      expect(own.code, `${command} --help`).toBe(0);
      const options = new Set([...own.stdout.matchAll(/--[a-z][a-z0-9-]*/g)].map((m) => m[0]));
      for (const option of options)
        if (!GLOBAL.includes(option) && !text.includes(option)) missing.push(`${command}: ${option}`);
    }
    expect(missing).toEqual([]);
  });
});
