/**
 * The building blocks of the schema definitions: short constructors for TypeBox's types and
 * the {@link SchemaBuilder} each definition module takes, which says which variant is being
 * built (open or strict, file version 1, 2 or 3). Use it only to define schemas
 * (`content.ts`, `messages.ts`, `entries.ts`); to pick a built set, use `schemasFor`.
 */
import type { TObject, TSchema } from "typebox";
import { Type } from "./typebox.js";

/** The format versions that have schemas of their own (later versions use v3's). */
export type SchemaVersion = 1 | 2 | 3;

/** A schema's properties by name. */
export type Props = Record<string, TSchema>;

export const Str = (): TSchema => Type.String();
export const Num = (): TSchema => Type.Number();
export const Bool = (): TSchema => Type.Boolean();
export const Opt = (schema: TSchema): TSchema => Type.Optional(schema);
/** A string that is none of `known`: the discriminator of a fallback branch. */
export const OtherString = (known: readonly string[]): TSchema =>
  Type.Unsafe<string>({ type: "string", not: { enum: [...known] } });

/** The variant being built, and the object constructors that follow from it. */
export interface SchemaBuilder {
  strict: boolean;
  version: SchemaVersion;
  /** An object of this variant: closed (no unknown keys) in strict mode. */
  object(props: Props, description?: string): TObject;
  /** An object that is open in every mode: the fallbacks that admit unknown types. */
  openObject(props: Props, description?: string): TObject;
}

// Schemas are typed as plain `TSchema`, not their inferred static types (decision 030); the
// TypeScript types of the format live in `types.ts`.
function objectBuilder(strict: boolean): (props: Props, description?: string) => TObject {
  return (props, description) =>
    Type.Object(props, {
      ...(strict ? { additionalProperties: false } : {}),
      ...(description ? { description } : {}),
    });
}

export function schemaBuilder(strict: boolean, version: SchemaVersion): SchemaBuilder {
  return { strict, version, object: objectBuilder(strict), openObject: objectBuilder(false) };
}
