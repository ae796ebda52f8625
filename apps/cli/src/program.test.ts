/**
 * `runCli` resolves once the work a command handed to `finishLater` has ended: the binary exits
 * as soon as the run resolves (run-process.ts), so nothing a command left running is cut short.
 */
import { afterEach, describe, expect, it } from "vitest";
import { COMMANDS } from "./commands/index.js";
import type { Action } from "./program.js";
import { runCaptured } from "../test/in-process.js";

const added: string[] = [];

function command(name: string, action: Action): void {
  COMMANDS.push({
    name,
    declare: (cli) => cli.command(name, "a command of this test"),
    load: async () => action,
  });
  added.push(name);
}

afterEach(() => {
  for (const name of added.splice(0))
    COMMANDS.splice(
      COMMANDS.findIndex((c) => c.name === name),
      1,
    );
});

async function run(argv: string[]) {
  const r = await runCaptured(argv, { env: {}, cwd: process.cwd() });
  return { code: r.code, out: r.stdout, err: r.stderr };
}

/** Work that ends a few turns of the event loop after it starts. */
function later(then: () => void): Promise<void> {
  return new Promise((resolve) =>
    setTimeout(() => {
      then();
      resolve();
    }, 10),
  );
}

describe("runCli and the work a command leaves running", () => {
  it("resolves after the command's finishLater work has ended, with the command's code", async () => {
    let ended = false;
    command("linger-ok", async (ctx) => {
      ctx.finishLater(later(() => (ended = true)));
      ctx.io.line("answered");
      return 0;
    });
    const result = await run(["linger-ok"]);
    expect(ended).toBe(true);
    expect(result).toMatchObject({ code: 0, out: "answered\n" });
  });

  it("waits for it when the command fails too, and a failure of that work changes nothing", async () => {
    let ended = false;
    command("linger-fails", async (ctx) => {
      ctx.finishLater(later(() => (ended = true)));
      ctx.finishLater(Promise.reject(new Error("background failure")));
      throw new Error("the command's own failure");
    });
    const result = await run(["linger-fails"]);
    expect(ended).toBe(true);
    expect(result.code).toBe(1);
    expect(result.err).toContain("the command's own failure");
    expect(result.err).not.toContain("background failure");
  });
});
