// A real npm registry on this machine, for the release test (scripts/release.test.ts):
// Verdaccio on a free loopback port, its storage and users in the directory given, and no
// uplink, so it serves only what was published to it (any other name is a 404: npm never
// gets a @pi-session package from anywhere else through it). Anyone may read; a logged-in
// user may publish @pi-session/* packages. Prints `listening <url>` on stdout once it
// accepts connections; stops on SIGTERM.
//
//   node scripts/local-registry.mjs <storage-dir>
import { join, resolve } from "node:path";
import { runServer } from "verdaccio";

const storage = process.argv[2];
if (!storage) {
  console.error("usage: node scripts/local-registry.mjs <storage-dir>");
  process.exit(2);
}
const dir = resolve(storage);

const server = await runServer({
  self_path: dir,
  storage: join(dir, "packages"),
  auth: { htpasswd: { file: join(dir, "htpasswd"), max_users: 10 } },
  uplinks: {},
  packages: {
    "@pi-session/*": { access: "$all", publish: "$authenticated", unpublish: "$authenticated" },
    "**": { access: "$all", publish: "$authenticated" },
  },
  log: { type: "stdout", format: "pretty", level: "error" },
  web: { enable: false },
});

server.listen(0, "127.0.0.1", () => {
  const { port } = server.address();
  console.log(`listening http://127.0.0.1:${port}/`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
