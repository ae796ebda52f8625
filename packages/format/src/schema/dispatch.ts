/**
 * Entry checks by tag: a value passes the `Entry` union exactly when it passes the one branch
 * its `type` (and, for a message entry, its `message.role`) selects, because every known
 * branch pins its tag with a `const` and the fallback branch admits exactly the other tags.
 * {@link checkEntry} looks that branch up and runs only its small check, instead of trying
 * branch after branch of one large function (decision 003). Use it for every entry check on
 * a hot path; valid entries allocate nothing.
 */
import type { TObject, TSchema } from "typebox";
import { Type } from "./typebox.js";
import { isObject } from "../object.js";
import { lazyCheck } from "./checks.js";
import type { Check } from "./compile.js";
import type { JsonSchema } from "./subset.js";

interface EntryDispatch {
  /** Entry type -> check; message entries are not in here (see `byRole`). */
  byType: Map<string, Check>;
  /** Message role -> check of a whole message entry with that role. */
  byRole: Map<string, Check>;
  /** Check for entry types not in `byType` (open mode), or undefined (strict: they fail). */
  otherType: Check | undefined;
  /** Check for message entries of other roles (open mode), or undefined. */
  otherRole: Check | undefined;
  /** Check for message entries whose `message` is not an object with a string role. */
  message: Check;
}

const dispatchCache = new WeakMap<TSchema, EntryDispatch>();

/** A TypeBox schema read as the JSON Schema it is. */
function shape(schema: TSchema): JsonSchema {
  return schema as JsonSchema;
}

/** The branches of a union, or the schema itself when it is no union. */
function branchesOf(schema: TSchema): TSchema[] {
  return (schema as { anyOf?: TSchema[] }).anyOf ?? [schema];
}

function splitByTag(
  branches: TSchema[],
  key: string,
  wrap: (branch: TSchema) => TSchema,
): { known: Map<string, Check>; other: Check | undefined } {
  const known = new Map<string, Check>();
  let other: Check | undefined;
  for (const branch of branches) {
    const tag = shape(branch).properties?.[key]?.const;
    if (typeof tag === "string") known.set(tag, lazyCheck(wrap(branch)));
    else other = lazyCheck(wrap(branch));
  }
  return { known, other };
}

function entryDispatch(entrySchema: TSchema): EntryDispatch {
  let dispatch = dispatchCache.get(entrySchema);
  if (dispatch !== undefined) return dispatch;
  const branches = branchesOf(entrySchema);
  const types = splitByTag(branches, "type", (branch) => branch);
  const messageEntry = branches.find((branch) => shape(branch).properties?.type?.const === "message");
  let byRole = new Map<string, Check>();
  let otherRole: Check | undefined;
  let message: Check = () => false;
  if (messageEntry !== undefined) {
    types.known.delete("message");
    // Every entry branch is an object schema.
    const entryObject = messageEntry as TObject;
    const closed = shape(messageEntry).additionalProperties === false;
    // The message entry with its `message` narrowed to one role's schema.
    const withMessage = (messageSchema: TSchema): TSchema =>
      Type.Object(
        { ...entryObject.properties, message: messageSchema },
        closed ? { additionalProperties: false } : {},
      );
    const anyMessage = entryObject.properties.message as TSchema;
    const roles = splitByTag(branchesOf(anyMessage), "role", withMessage);
    byRole = roles.known;
    otherRole = roles.other;
    message = lazyCheck(messageEntry);
  }
  dispatch = { byType: types.known, byRole, otherType: types.other, otherRole, message };
  dispatchCache.set(entrySchema, dispatch);
  return dispatch;
}

/** Whether `value` passes `entrySchema` (a union of entry branches), via its tag. */
export function checkEntry(entrySchema: TSchema, value: unknown): boolean {
  if (!isObject(value)) return false;
  const dispatch = entryDispatch(entrySchema);
  const type = value.type;
  if (typeof type !== "string") return false;
  if (type === "message") {
    const message = value.message;
    const role = isObject(message) ? message.role : undefined;
    if (typeof role !== "string") return dispatch.message(value);
    const check = dispatch.byRole.get(role) ?? dispatch.otherRole;
    return check?.(value) === true;
  }
  const check = dispatch.byType.get(type) ?? dispatch.otherType;
  return check?.(value) === true;
}
