/**
 * JSON of any value at any depth, for `--json` output and values shown as text. The
 * serializer lives in the render layer (its one home; the renderers use it too).
 */
export {
  MAX_INDENTED_DEPTH,
  escapeTerminalUnsafe,
  jsonText,
  serializeJson,
  writeJson,
} from "@pi-session/render";
