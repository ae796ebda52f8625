// The app's dev server: `pnpm --filter @pi-session/web dev [sessions-root]`. Serves a store
// (the argument, else PI_CODING_AGENT_SESSION_DIR, else ~/.pi/agent/sessions) with the
// server from dist/ (run `pnpm build` first; restart this after changing src/), and the client
// rebuilt by esbuild on every change of client/ or a layer's source: open pages reload.
import { homedir } from "node:os";
import { join } from "node:path";
import { context } from "esbuild";
import { startServer } from "../dist/index.js";
import { joinStyles } from "../../../packages/render/scripts/browser-assets.mjs";
import { CLIENT_STYLES, clientBuildOptions } from "./build-client.mjs";

const root =
  process.argv[2] ?? process.env.PI_CODING_AGENT_SESSION_DIR ?? join(homedir(), ".pi", "agent", "sessions");
let assets = { script: "", style: "" };
let server;

const ctx = await context({
  ...clientBuildOptions(),
  plugins: [
    {
      name: "reload",
      setup(build) {
        build.onEnd(async (result) => {
          if (result.errors.length > 0) return;
          assets = { script: result.outputFiles[0].text, style: joinStyles(CLIENT_STYLES) };
          server?.reload();
          console.error(`rebuilt the client (${assets.script.length} bytes)`);
        });
      },
    },
  ],
});
await ctx.rebuild();
await ctx.watch();
server = await startServer({
  root,
  port: Number(process.env.PORT ?? 0),
  assets: () => assets,
  onWarning: console.error,
});
console.log(server.url);
const { watch } = await import("node:fs");
// The style sheet is not in esbuild's graph: rebuild when it changes.
watch(new URL("../client/style.css", import.meta.url), () => void ctx.rebuild());
