/**
 * What is wrong with a value that fails a schema: a list of issues, each a JSON pointer and
 * what was expected there. Unions are discriminated by `type`/`role`, so only the branch the
 * value claims to be is reported, not every branch it fails. Use {@link explainFailure} once a
 * check has said no; it is slower than the check and allocates.
 */
import type { TSchema } from "typebox";
import { isObject } from "../object.js";
import { compiledValidator } from "./checks.js";
import type { JsonSchema } from "./subset.js";

/** A schema problem: where (a JSON pointer into the value) and what was expected. */
export interface ValidationIssue {
  /** JSON pointer, `""` for the value itself, e.g. `/message/content/0/text`. */
  path: string;
  /** What is wrong, e.g. `expected string, got number`. */
  message: string;
}

/** The issues of a value known to fail `schema`. */
export function explainFailure(schema: TSchema, value: unknown): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  explain(schema as JsonSchema, value, "", issues);
  if (issues.length > 0) return issues;
  // The explainer covers the keywords these schemas use; if it ever disagrees with the
  // compiled validator, report the validator's own errors rather than nothing.
  return compiledValidator(schema)
    .Errors(value)
    .map((e) => ({ path: e.instancePath, message: e.message }));
}

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function typeMatches(expected: string, value: unknown): boolean {
  if (expected === "integer") return Number.isInteger(value);
  return expected === jsonType(value);
}

function pointer(path: string, key: string | number): string {
  return `${path}/${String(key).replace(/~/g, "~0").replace(/\//g, "~1")}`;
}

function short(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

function explain(schema: JsonSchema, value: unknown, path: string, issues: ValidationIssue[]): void {
  if (schema.anyOf !== undefined) {
    explainUnion(schema.anyOf, value, path, issues);
    return;
  }
  if (schema.type !== undefined && !typeMatches(schema.type, value)) {
    issues.push({ path, message: `expected ${schema.type}, got ${jsonType(value)}` });
    return;
  }
  if (schema.const !== undefined && value !== schema.const) {
    issues.push({ path, message: `expected ${short(schema.const)}, got ${short(value)}` });
    return;
  }
  if (schema.enum !== undefined && !schema.enum.includes(value)) {
    issues.push({
      path,
      message: `expected one of ${schema.enum.map(short).join(", ")}, got ${short(value)}`,
    });
    return;
  }
  if (schema.not?.enum?.includes(value)) {
    issues.push({
      path,
      message: `${short(value)} is a known type here but the value does not match its schema`,
    });
    return;
  }
  if (schema.type === "object" && isObject(value)) {
    const object = value;
    for (const key of schema.required ?? []) {
      if (!Object.hasOwn(object, key)) issues.push({ path, message: `missing required property "${key}"` });
    }
    for (const [key, sub] of Object.entries(schema.properties ?? {})) {
      if (Object.hasOwn(object, key)) explain(sub, object[key], pointer(path, key), issues);
    }
    const anyKey = schema.patternProperties?.["^.*$"];
    for (const key of Object.keys(object)) {
      if (schema.properties?.[key] !== undefined) continue;
      if (anyKey !== undefined) explain(anyKey, object[key], pointer(path, key), issues);
      else if (schema.additionalProperties === false) {
        issues.push({ path: pointer(path, key), message: `unexpected property "${key}" (strict mode)` });
      }
    }
  }
  if (schema.type === "array" && Array.isArray(value) && schema.items !== undefined) {
    const items = schema.items;
    value.forEach((item, i) => {
      explain(items, item, pointer(path, i), issues);
    });
  }
}

function discriminator(branches: JsonSchema[]): string | undefined {
  for (const key of ["type", "role"]) {
    if (branches.some((b) => b.properties?.[key]?.const !== undefined)) return key;
  }
  return undefined;
}

function explainUnion(branches: JsonSchema[], value: unknown, path: string, issues: ValidationIssue[]): void {
  const explainInto = (branch: JsonSchema, into: ValidationIssue[]) => explain(branch, value, path, into);
  const key = discriminator(branches);
  if (key !== undefined && isObject(value)) {
    // Report only the branch the value claims to be (or the fallback for unknown tags).
    const tag = value[key];
    const chosen =
      branches.find((b) => b.properties?.[key]?.const === tag) ??
      branches.find((b) => b.properties?.[key]?.not !== undefined);
    if (chosen !== undefined) {
      explainInto(chosen, issues);
      return;
    }
    const tags = branches.map((b) => b.properties?.[key]?.const).filter((t) => t !== undefined);
    issues.push({
      path: pointer(path, key),
      message: `expected one of ${tags.map(short).join(", ")}, got ${short(tag)}`,
    });
    return;
  }
  const candidates = branches.filter((b) => b.type === undefined || typeMatches(b.type, value));
  const only = candidates[0];
  if (candidates.length === 1 && only !== undefined) {
    explainInto(only, issues);
    return;
  }
  for (const branch of candidates) {
    const sub: ValidationIssue[] = [];
    explainInto(branch, sub);
    if (sub.length === 0) return;
  }
  const names = [
    ...new Set(branches.map((b) => (b.const !== undefined ? short(b.const) : (b.type ?? "value")))),
  ];
  issues.push({ path, message: `expected ${names.join(" or ")}, got ${short(value)}` });
}
