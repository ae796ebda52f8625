/**
 * @pi-session/web: the local web app `pi-session serve` starts. A read-only HTTP server over
 * one session store (sessions, search, a session's transcript, tree and context, usage
 * charts, live updates) and the browser app it serves, built into this package's
 * `client-assets.ts` so the CLI ships it inside its bundle. See the README.
 */
export { type RunningServer, type ServeOptions, startServer } from "./server.js";
export { isLoopback } from "./security.js";
