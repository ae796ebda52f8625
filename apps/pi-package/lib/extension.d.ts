/**
 * The pi extension of `@pi-session/pi`: the model gets `search_sessions` and `read_session`
 * (the agent tools of `@pi-session/agent-tools`: the same schemas and answers as `pi-session
 * mcp`), and the person gets `/sessions [query]`: a search (or, without a query, the newest
 * sessions of this project), a pick with pi's own selector, then a switch to the chosen session.
 *
 * It answers from the store pi itself uses (`--session-dir` aside, which an extension cannot
 * see: `PI_CODING_AGENT_SESSION_DIR`, the `sessionDir` setting, else `~/.pi/agent/sessions`),
 * through the session database `pi-session search` keeps (`$XDG_CACHE_HOME/pi-session`),
 * opened on first use and closed when the session shuts down. It never writes a session.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
export default function piSessionExtension(pi: ExtensionAPI): void;
