/**
 * The JSON Schema keywords the format's schemas use, as a type: what the code generator
 * (`compile.ts`), the entry dispatch (`dispatch.ts`) and the failure explainer (`explain.ts`)
 * read from a TypeBox schema, which is a JSON Schema object.
 */
export interface JsonSchema {
  type?: string;
  const?: unknown;
  enum?: unknown[];
  not?: JsonSchema;
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean;
  patternProperties?: Record<string, JsonSchema>;
  items?: JsonSchema;
}
