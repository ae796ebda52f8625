/**
 * @pi-session/agent-tools: the tools an agent uses to look at its own past sessions
 * (`search_sessions`, `read_session`, `session_context`, `list_sessions`, `usage_stats`), with
 * JSON Schema inputs and bounded, redacted answers, over a store of sessions: the local session
 * database, or any other behind the {@link AgentStore} seam. `pi-session mcp` serves them over
 * MCP; the pi package registers them in pi.
 */
export {
  type AgentTool,
  type AgentTools,
  type AgentToolsOptions,
  type ToolAnswer,
  createAgentTools,
  describeAgentTools,
} from "./tools.js";
export type { AgentStore, StoreSearchResult, StoreSession } from "./store.js";
export { type LocalStoreOptions, openLocalStore } from "./local-store.js";
export {
  DEFAULT_MAX_CHARS,
  type InputSchema,
  MIN_MAX_CHARS,
  type PropertySchema,
  ROLES,
  STATS_GROUPS,
  ToolInputError,
  type ToolName,
  checkArguments,
  inputSchemas,
} from "./schemas.js";
