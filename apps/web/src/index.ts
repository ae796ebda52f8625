/**
 * @pi-session/web: the local web app `pi-session serve` starts. A read-only HTTP server over
 * one session store or a team's PostgreSQL database (sessions, search, a session's transcript, tree and context, usage
 * charts, live updates) and the browser app it serves, built into this package's
 * `client-assets.ts` so the CLI ships it inside its bundle. See the README.
 */
export { type RunningServer, type ServeOptions, startServer } from "./server.js";
export { isLoopback } from "./security.js";
export type { Served, SessionRow } from "./rows.js";
export type { SessionSource } from "./source.js";
