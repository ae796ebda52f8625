/**
 * @pi-session/format: the types of pi session files and the line codec.
 *
 * The public face of the package; see the README for what each export is for. The
 * schemas live in the `@pi-session/format/schema` subpath so this entry stays light.
 */
export * from "./types.js";
export * from "./records.js";
export {
  type DecoderOptions,
  type ParseResult,
  type TornTail,
  SessionLineDecoder,
  parseSessionBytes,
  parseSessionText,
  rawRecordValue,
  resultOf,
} from "./codec/decoder.js";
export { type JsonSyntaxError, isJsonText, jsonSyntaxError } from "./json-check.js";
export {
  type SerializeOptions,
  encodeLine,
  serializeEntry,
  serializeRecords,
  stringifyEntry,
  utf8,
} from "./serialize.js";
export { type SessionView, detectVersion, splitSession } from "./session.js";
export { MAX_INDENTED_DEPTH, serializeJson, stringifyJson, writeJsonText } from "./json-text.js";
