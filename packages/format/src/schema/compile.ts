/**
 * The code generator of the fast checks: a JSON Schema of the subset the format's schemas use
 * -> one small JavaScript function per distinct sub-schema (Usage, a text block, ...), shared
 * by all its uses; unions tagged by `type`/`role` become a `switch`, and each property value is
 * read once. It makes the same accept/reject decisions as TypeBox's `Compile` (a property test
 * holds it to them), which inlines every sub-schema at every use and so makes one huge function
 * per entry branch that stays slow until the optimizing compiler reaches it (decision 003).
 *
 * Use {@link compileCheck} through `checks.ts`, which falls back to TypeBox when it returns
 * undefined: for a keyword outside the subset, or where `new Function` is not allowed.
 */
import type { JsonSchema } from "./subset.js";

/** Whether a value passes a schema. */
export type Check = (value: unknown) => boolean;

const SUPPORTED = new Set([
  "type",
  "required",
  "properties",
  "const",
  "enum",
  "not",
  "anyOf",
  "items",
  "patternProperties",
  "additionalProperties",
  "description",
  "title",
]);

class Unsupported extends Error {}

/** The branches of a union discriminated by one key: one per tag, and the fallback if any. */
interface TaggedUnion {
  key: string;
  known: Map<string, JsonSchema>;
  other: JsonSchema | undefined;
}

function literal(value: unknown): string {
  if (typeof value === "string" || typeof value === "boolean" || value === null) return JSON.stringify(value);
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  throw new Unsupported("non-primitive literal");
}

/** The tag key and branch per tag of a union discriminated by `type` or `role`, if it is one. */
function tagged(branches: JsonSchema[]): TaggedUnion | undefined {
  for (const key of ["type", "role"]) {
    const known = new Map<string, JsonSchema>();
    let other: JsonSchema | undefined;
    let ok = true;
    for (const branch of branches) {
      const tag = branch.properties?.[key];
      const isObject = branch.type === "object" && branch.required?.includes(key) === true;
      if (isObject && typeof tag?.const === "string" && !known.has(tag.const)) known.set(tag.const, branch);
      else if (isObject && tag?.type === "string" && tag.not?.enum !== undefined && other === undefined) {
        other = branch;
        // The fallback must exclude every known tag, or a known tag could match it too.
        const excluded = tag.not.enum;
        if (branches.some((b) => b !== branch && !excluded.includes(b.properties?.[key]?.const))) ok = false;
      } else ok = false;
    }
    if (ok && known.size > 0) return { key, known, other };
  }
  return undefined;
}

/** The generated check of `root`, or undefined when it uses a keyword outside the subset. */
export function compileCheck(root: JsonSchema): Check | undefined {
  const names = new Map<JsonSchema, string>();
  const functions: string[] = [];
  let variables = 0;

  /** A JS boolean expression testing `expr` when `schema` is a plain type/const test, else undefined. */
  function simple(schema: JsonSchema, expr: string): string | undefined {
    for (const k of Object.keys(schema))
      if (k !== "type" && k !== "const" && k !== "description") return undefined;
    const parts: string[] = [];
    if (schema.type === "string" || schema.type === "boolean") parts.push(`typeof ${expr} === "${schema.type}"`);
    else if (schema.type === "number") parts.push(`Number.isFinite(${expr})`);
    else if (schema.type === "integer") parts.push(`Number.isInteger(${expr})`);
    else if (schema.type === "null") parts.push(`${expr} === null`);
    else if (schema.type !== undefined) return undefined;
    if (schema.const !== undefined) parts.push(`${expr} === ${literal(schema.const)}`);
    return parts.length > 0 ? parts.join(" && ") : "true";
  }

  /** A JS boolean expression testing `expr` against `schema` (inline when simple, else a call). */
  function test(schema: JsonSchema, expr: string): string {
    return simple(schema, expr) ?? `${fn(schema)}(${expr})`;
  }

  /** The name of the generated function of `schema` (generated on first use). */
  function fn(schema: JsonSchema): string {
    let name = names.get(schema);
    if (name !== undefined) return name;
    name = `f${names.size}`;
    names.set(schema, name);
    functions.push(`function ${name}(v) {\n${body(schema)}\nreturn true;\n}`);
    return name;
  }

  /** The statements of a generated function that returns false where `v` fails `schema`. */
  function body(schema: JsonSchema): string {
    for (const k of Object.keys(schema)) if (!SUPPORTED.has(k)) throw new Unsupported(k);
    const out: string[] = [];
    const fail = (cond: string) => out.push(`if (${cond}) return false;`);
    const plain = simple({ type: schema.type, const: schema.const }, "v");
    if (schema.type === "object") fail(`typeof v !== "object" || v === null || Array.isArray(v)`);
    else if (schema.type === "array") fail(`!Array.isArray(v)`);
    else if (plain !== undefined && plain !== "true") fail(`!(${plain})`);
    else if (schema.type !== undefined || schema.const !== undefined) throw new Unsupported("type");
    if (schema.type === "object" && schema.const !== undefined) throw new Unsupported("object const");
    if (schema.enum !== undefined)
      fail(`!(${schema.enum.map((e) => `v === ${literal(e)}`).join(" || ") || "false"})`);
    if (schema.not !== undefined) {
      const excluded = schema.not.enum;
      if (excluded === undefined || Object.keys(schema.not).length !== 1) throw new Unsupported("not");
      if (excluded.length > 0) fail(excluded.map((e) => `v === ${literal(e)}`).join(" || "));
    }
    const objectOnly =
      schema.properties ?? schema.required ?? schema.patternProperties ?? schema.additionalProperties;
    if (objectOnly !== undefined && schema.type !== "object") throw new Unsupported("object keywords");
    if (schema.items !== undefined && schema.type !== "array") throw new Unsupported("items");
    for (const k of schema.required ?? []) fail(`!(${JSON.stringify(k)} in v)`);
    const required = new Set(schema.required ?? []);
    for (const [k, sub] of Object.entries(schema.properties ?? {})) {
      if (Object.keys(sub).every((x) => x === "description")) continue; // anything goes
      const variable = `x${variables++}`;
      out.push(`const ${variable} = v[${JSON.stringify(k)}];`);
      // A missing optional property reads as undefined (JSON has no undefined values).
      fail(
        required.has(k)
          ? `!(${test(sub, variable)})`
          : `${variable} !== undefined && !(${test(sub, variable)})`,
      );
    }
    const pattern = schema.patternProperties;
    if (pattern !== undefined) {
      const keys = Object.keys(pattern);
      const anyKey = pattern["^.*$"];
      if (keys.length !== 1 || anyKey === undefined) throw new Unsupported("patternProperties");
      if (!Object.keys(anyKey).every((x) => x === "description"))
        out.push(`for (const k of Object.keys(v)) if (!(${test(anyKey, "v[k]")})) return false;`);
    } else if (schema.additionalProperties === false) {
      const known = Object.keys(schema.properties ?? {}).map((k) => `case ${JSON.stringify(k)}:`);
      out.push(
        `for (const k of Object.keys(v)) switch (k) { ${known.join(" ")} continue; default: return false; }`,
      );
    } else if (schema.additionalProperties !== undefined && schema.additionalProperties !== true) {
      throw new Unsupported("additionalProperties");
    }
    if (schema.items !== undefined) {
      out.push(`for (let i = 0; i < v.length; i++) if (!(${test(schema.items, "v[i]")})) return false;`);
    }
    if (schema.anyOf !== undefined) {
      const union = tagged(schema.anyOf);
      if (union !== undefined) {
        // Each branch checks the object shape itself; the switch only routes by tag.
        fail(`typeof v !== "object" || v === null`);
        const cases = [...union.known].map(([tag, branch]) => `case ${literal(tag)}: return ${fn(branch)}(v);`);
        const other = union.other !== undefined ? `return ${fn(union.other)}(v);` : "return false;";
        out.push(`switch (v[${JSON.stringify(union.key)}]) { ${cases.join(" ")} default: ${other} }`);
      } else {
        fail(`!(${schema.anyOf.map((branch) => test(branch, "v")).join(" || ") || "false"})`);
      }
    }
    return out.join("\n");
  }

  try {
    const entry = fn(root);
    // Source generated from our own schemas only (TypeBox compiles the same way).
    const make = new Function(`"use strict";\n${functions.join("\n")}\nreturn ${entry};`) as () => Check;
    return make();
  } catch {
    return undefined;
  }
}
