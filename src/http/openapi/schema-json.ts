// TypeBox schemas → the JSON Schemas of an OpenAPI 3.1 document. TypeBox values are JSON Schema
// already; this pass only names things: a titled object becomes a component (`Order`, `Contract`,
// …) referenced by `$ref`, an enum (titled like one of ENUMS, or a field a family names) becomes a
// reference to the enum's component with its names, and a union of constants is written as `enum`.

import type { TSchema } from '@sinclair/typebox';
import { ENUMS, enumSchema, type EnumName, type Json, type JsonObject } from './components.ts';

/** A field whose schema is one of ENUMS although it carries no title (`unit` beside `unitNumber`). */
export interface FieldEnum {
  readonly property: string;
  /** Only in objects that also have this property (`type` beside `side` is an order type). */
  readonly sibling?: string;
  readonly enum: EnumName;
}

/** Components collected while converting one document's schemas. */
export class SchemaNamer {
  readonly components: Record<string, JsonObject> = {};

  constructor(private readonly fieldEnums: readonly FieldEnum[]) {}

  /** The JSON Schema of `schema`, with its named parts moved to `components`. */
  convert(schema: TSchema, where: string): JsonObject {
    return this.walk(JSON.parse(JSON.stringify(schema)) as JsonObject, where);
  }

  private walk(node: JsonObject, where: string): JsonObject {
    const out: JsonObject = { ...node };
    if (isObject(node.properties)) {
      const siblings = Object.keys(node.properties);
      const props: JsonObject = {};
      for (const [name, child] of Object.entries(node.properties)) {
        const converted = this.walk(child as JsonObject, `${where}.${name}`);
        const rule = this.fieldEnums.find((r) => r.property === name && (r.sibling === undefined || siblings.includes(r.sibling)));
        props[name] = rule && !isRef(converted) ? this.enumRef(converted, rule.enum, `${where}.${name}`) : converted;
      }
      out.properties = props;
    }
    for (const key of ['items', 'additionalProperties', 'not'] as const) {
      if (isObject(node[key])) out[key] = this.walk(node[key] as JsonObject, `${where}.${key}`);
    }
    for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
      const list = node[key];
      if (Array.isArray(list)) out[key] = list.map((s, i) => this.walk(s as JsonObject, `${where}.${key}[${i}]`));
    }
    const simplified = liftNullableNote(constUnionAsEnum(out));
    const title = simplified.title;
    if (typeof title === 'string' && title in ENUMS) return this.enumRef(simplified, title as EnumName, where);
    if (typeof title === 'string' && simplified.type === 'object') return this.hoist(title, simplified, where);
    return simplified;
  }

  /** `{$ref}` to the enum's component, after checking that the schema allows nothing the enum lacks. */
  private enumRef(schema: JsonObject, name: EnumName, where: string): JsonObject {
    const nullable = Array.isArray(schema.anyOf) && schema.anyOf.some((s) => isObject(s) && s.type === 'null');
    const core = nullable ? ((schema.anyOf as JsonObject[]).find((s) => s.type !== 'null') ?? {}) : schema;
    const e = ENUMS[name];
    const allowed = new Set<Json>(e.values.map(([v]) => v));
    const values = valuesOf(core);
    if (values) {
      const extra = values.filter((v) => !allowed.has(v));
      if (extra.length > 0) throw new Error(`${where}: ${JSON.stringify(extra)} not in enum ${name}`);
    } else if (!typeFits(core.type, e.type)) {
      throw new Error(`${where}: a ${String(core.type)} cannot be enum ${name} (${e.type})`);
    }
    this.components[name] ??= enumSchema(e);
    const ref: JsonObject = { $ref: `#/components/schemas/${name}` };
    // A field's own note (not the enum's list of names) stays beside the reference.
    const out: JsonObject = nullable ? { anyOf: [ref, { type: 'null' }] } : ref;
    if (typeof schema.description === 'string' && schema.title === undefined) out.description = schema.description;
    if (schema.default !== undefined) out.default = schema.default;
    return out;
  }

  private hoist(title: string, schema: JsonObject, where: string): JsonObject {
    const name = title.replace(/[^A-Za-z0-9._-]/g, '');
    const prev = this.components[name];
    if (prev !== undefined && JSON.stringify(prev) !== JSON.stringify(schema)) {
      throw new Error(`${where}: two different schemas are titled ${title}`);
    }
    this.components[name] = schema;
    return { $ref: `#/components/schemas/${name}` };
  }
}

function isObject(v: Json | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isRef(s: JsonObject): boolean {
  return typeof s.$ref === 'string' || (Array.isArray(s.anyOf) && s.anyOf.some((b) => isObject(b) && typeof b.$ref === 'string'));
}

/** The values a schema allows when it lists them (`const`, `enum`, a union of those), else null. */
function valuesOf(s: JsonObject): Json[] | null {
  if (s.const !== undefined) return [s.const];
  if (Array.isArray(s.enum)) return s.enum;
  if (Array.isArray(s.anyOf)) {
    const parts = s.anyOf.map((b) => (isObject(b) ? valuesOf(b) : null));
    return parts.every((p) => p !== null) ? (parts as Json[][]).flat() : null;
  }
  return null;
}

function typeFits(type: Json | undefined, enumType: 'integer' | 'string'): boolean {
  if (enumType === 'string') return type === 'string';
  return type === 'integer' || type === 'number';
}

/** `X or null` with a note on X: the note goes on the field, where readers look for it. */
function liftNullableNote(s: JsonObject): JsonObject {
  if (!Array.isArray(s.anyOf) || s.anyOf.length !== 2 || s.description !== undefined) return s;
  const branches = s.anyOf as JsonObject[];
  const i = branches.findIndex((b) => isObject(b) && b.type !== 'null' && typeof b.description === 'string');
  if (i < 0 || !branches.some((b) => isObject(b) && b.type === 'null')) return s;
  const { description, ...rest } = branches[i];
  return { ...s, description, anyOf: branches.map((b, j) => (j === i ? rest : b)) };
}

/** `anyOf` of constants of one type → `{type, enum}`, which readers and client generators show better. */
function constUnionAsEnum(s: JsonObject): JsonObject {
  if (!Array.isArray(s.anyOf) || s.anyOf.length < 2) return s;
  const branches = s.anyOf as JsonObject[];
  if (!branches.every((b) => isObject(b) && b.const !== undefined && Object.keys(b).every((k) => k === 'const' || k === 'type'))) return s;
  const types = new Set(branches.map((b) => (typeof b.const === 'string' ? 'string' : Number.isInteger(b.const) ? 'integer' : typeof b.const)));
  if (types.size !== 1) return s;
  const { anyOf: _, ...rest } = s;
  return { ...rest, type: [...types][0], enum: branches.map((b) => b.const) };
}
