/**
 * `serve` on a port another process holds: a usage error (exit 2) that suggests `--port 0`, not
 * a raw EADDRINUSE, and nothing left running (in-process through `runCli`).
 */
import { type Server, createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CliHome } from "../test/harness.js";

describe("serve --port <in use>", () => {
  let cli: CliHome;
  /** In-process, colours off (a `columns` wide stdout is a terminal). */
  const run = (args: string[], opts: { cwd?: string; env?: Record<string, string>; columns?: number } = {}) =>
    cli.runInProcess(args, { ...opts, env: { NO_COLOR: "1", ...opts.env } });
  let taken: Server;
  let port: number;

  beforeAll(async () => {
    cli = new CliHome();
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    port = (taken.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => taken.close(resolve));
    cli.cleanup();
  });

  it("exits 2 and says to take a free port with --port 0", async () => {
    const r = await run(["serve", "--port", String(port)], { env: { PI_SESSION_SERVE_POLL_ONLY: "1" } });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(`--port ${port}: already in use`);
    expect(r.stderr).toContain("--port 0");
  });
});
