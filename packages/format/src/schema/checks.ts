/**
 * Checks of a value against a schema, compiled on first use and cached: the generated fast
 * check (`compile.ts`) where it can be made, else TypeBox's compiled validator. Use
 * {@link fastCheck} to test a value; {@link compiledValidator} is TypeBox's validator itself,
 * the reference the fast checks are tested against and the source of errors the explainer
 * cannot give.
 */
import type { TSchema } from "typebox";
import { type Check, compileCheck } from "./compile.js";
import type { JsonSchema } from "./subset.js";
import { Compile } from "./typebox.js";

/** What this package uses of a TypeBox compiled validator. */
export interface CompiledValidator {
  Check(value: unknown): boolean;
  Errors(value: unknown): { instancePath: string; message: string }[];
}

const compiled = new WeakMap<TSchema, CompiledValidator>();

/** TypeBox's compiled validator of a schema, compiled on first use and cached. */
export function compiledValidator(schema: TSchema): CompiledValidator {
  let validator = compiled.get(schema);
  if (validator === undefined) {
    // TypeBox's Validator type carries the schema's static type; only these two methods are used.
    validator = Compile(schema) as unknown as CompiledValidator;
    compiled.set(schema, validator);
  }
  return validator;
}

/** A check that is compiled on its first call only (generated, else TypeBox's). */
export function lazyCheck(schema: TSchema): Check {
  let check: Check | undefined;
  return (value) => {
    if (check === undefined) {
      const fast = compileCheck(schema as JsonSchema);
      if (fast !== undefined) check = fast;
      else {
        const validator = compiledValidator(schema);
        check = (v) => validator.Check(v);
      }
    }
    return check(value);
  };
}

const fastChecks = new WeakMap<TSchema, Check>();

/** The check of a schema (generated, else TypeBox's when the generator cannot), cached. */
export function fastCheck(schema: TSchema): Check {
  let check = fastChecks.get(schema);
  if (check === undefined) {
    check = lazyCheck(schema);
    fastChecks.set(schema, check);
  }
  return check;
}
