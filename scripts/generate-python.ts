// Generates the Python client's types (python/src/assay_client/types.py) from the API document
// (sdk/openapi.json): one TypedDict per components/schemas entry, under the same name, so Python code
// and a type checker see what the TypeScript SDK sees. `npm run sdk` writes it after the document;
// test/node/python-types.test.ts fails when the committed file is stale.
//
// Python 3.10 has no `NotRequired`, so an object with required and optional keys is two classes: a
// private base with the required keys, and the public class (total=False) with the optional ones. A key
// that is not a Python identifier (`from`) goes in the functional form. Objects declared inline get a
// name from where they sit (`JudgeRun` + `progress` = `JudgeRunProgress`). Unions are aliases that keep
// each member's `evaluator` (or `kind`) Literal, so pyright narrows `run["evaluator"] == "judge"`.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const PYTHON_TYPES = join(import.meta.dirname, "..", "python", "src", "assay_client", "types.py");
const OPENAPI = join(import.meta.dirname, "..", "sdk", "openapi.json");

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema | false;
  prefixItems?: Schema[];
  enum?: unknown[];
  const?: unknown;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
  $ref?: string;
  description?: string;
};

const PY_KEYWORDS = new Set(
  (
    "False None True and as assert async await break class continue def del elif else except finally for from " +
    "global if import in is lambda nonlocal not or pass raise return try while with yield"
  ).split(" "),
);

const isIdentifier = (key: string) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) && !PY_KEYWORDS.has(key);
const pascal = (key: string) =>
  key
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join("");
const refName = (ref: string) => ref.replace(/^#\/components\/schemas\//, "");

/** A Python literal for a JSON enum or const value. */
function pyLiteral(v: unknown): string {
  if (v === null) return "None";
  if (typeof v === "boolean") return v ? "True" : "False";
  if (typeof v === "number") return String(v);
  return JSON.stringify(v);
}

/** Text wrapped to `width` columns, for docstrings (the descriptions are single paragraphs). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.replace(/\s+/g, " ").trim().split(" ")) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/** A docstring at `indent`, its quotes and backslashes escaped. */
function docstring(text: string, indent: string): string[] {
  const safe = text.replace(/\\/g, "\\\\").replace(/"""/g, '\\"\\"\\"');
  const lines = wrap(safe, 110 - indent.length);
  if (lines.length === 1 && lines[0].length + indent.length + 6 <= 110) return [`${indent}"""${lines[0]}"""`];
  return [`${indent}"""`, ...lines.map((l) => `${indent}${l}`), `${indent}"""`];
}

class Generator {
  private readonly schemas: Record<string, Schema>;
  /** Every name given out, schemas first, so an inline object never takes a schema's name. */
  private readonly taken: Set<string>;
  /** Class definitions (TypedDicts), in the order they are made. */
  private readonly classes: string[][] = [];
  /** Aliases (unions, lists, scalars), emitted after every class. */
  private readonly aliases: string[][] = [];

  constructor(schemas: Record<string, Schema>) {
    this.schemas = schemas;
    this.taken = new Set(Object.keys(schemas));
  }

  /** The schemas already written (a base class is written before the classes that extend it). */
  private readonly done = new Set<string>();

  run(): string {
    for (const name of Object.keys(this.schemas)) this.ensure(name);
    return [...this.classes, ...this.aliases].map((block) => block.join("\n")).join("\n\n\n");
  }

  private fresh(base: string): string {
    let name = base;
    for (let i = 2; this.taken.has(name); i++) name = `${base}${i}`;
    this.taken.add(name);
    return name;
  }

  private ensure(name: string): void {
    if (this.done.has(name)) return;
    this.done.add(name);
    this.named(name, this.schemas[name]);
  }

  /** A components/schemas entry: a TypedDict when it is an object, an alias otherwise. */
  private named(name: string, schema: Schema): void {
    if (this.isObject(schema) || schema.allOf?.some((s) => this.isObject(s))) {
      this.typedDict(name, schema);
      return;
    }
    let expr = this.expr(schema, name, true);
    if (`${name}: TypeAlias = ${expr}`.length > 110 && expr.startsWith("Union[")) {
      // One member a line, as a formatter would.
      const members = expr.slice("Union[".length, -1).split(", ");
      expr = ["Union[", ...members.map((m) => `    ${m},`), "]"].join("\n");
    }
    this.aliases.push([
      `${name}: TypeAlias = ${expr}`,
      ...(schema.description ? docstring(schema.description, "") : []),
    ]);
  }

  private isObject(schema: Schema): boolean {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    return types.includes("object") && schema.properties !== undefined && Object.keys(schema.properties).length > 0;
  }

  /**
   * A TypedDict named `name` for an object schema, or for an allOf of schemas (its $ref members become
   * base classes, its inline objects add keys).
   */
  private typedDict(name: string, schema: Schema): void {
    const bases: string[] = [];
    const props: Record<string, Schema> = {};
    const required = new Set<string>();
    let description = schema.description;
    for (const part of schema.allOf ?? [schema]) {
      if (part.$ref) {
        // Python needs a base class defined before the class: write it first.
        this.ensure(refName(part.$ref));
        bases.push(refName(part.$ref));
      } else {
        Object.assign(props, part.properties ?? {});
        for (const r of part.required ?? []) required.add(r);
        description ??= part.description;
      }
    }
    const fields = (keys: string[]) => keys.map((k) => ({ key: k, schema: props[k] }));
    const req = fields(Object.keys(props).filter((k) => required.has(k)));
    const opt = fields(Object.keys(props).filter((k) => !required.has(k)));
    const doc = description ? docstring(description, "    ") : [];

    const functional = [...req, ...opt].some((f) => !isIdentifier(f.key));
    if (!functional) {
      if (req.length === 0 || opt.length === 0) {
        this.classes.push(this.classForm(name, bases, opt.length === 0, req.length ? req : opt, doc));
      } else {
        // The two-class pattern: the required keys in a private base, the optional ones in the public class.
        const base = this.fresh(`_${name}Required`);
        this.classes.push(this.classForm(base, bases, true, req, [], name));
        this.classes.push(this.classForm(name, [base], false, opt, doc));
      }
      return;
    }
    // A key Python cannot name (`from`): the part holding it in the functional form, which takes no
    // bases, so the public class joins the bases and the parts.
    const parts: string[] = [];
    for (const [total, keys] of [
      [true, req],
      [false, opt],
    ] as const) {
      if (keys.length === 0) continue;
      const part = this.fresh(`_${name}${total ? "Required" : "Optional"}`);
      parts.push(part);
      const hasFunctional = keys.some((f) => !isIdentifier(f.key));
      this.classes.push(
        hasFunctional ? this.functionalForm(part, total, keys, name) : this.classForm(part, [], total, keys, [], name),
      );
    }
    this.classes.push([`class ${name}(${[...bases, ...parts].join(", ")}):`, ...(doc.length ? doc : ["    pass"])]);
  }

  private classForm(
    name: string,
    bases: string[],
    total: boolean,
    keys: { key: string; schema: Schema }[],
    doc: string[],
    owner = name,
  ): string[] {
    const head = `class ${name}(${[...(bases.length ? bases : ["TypedDict"]), ...(total ? [] : ["total=False"])].join(", ")}):`;
    const body: string[] = [...doc];
    for (const { key, schema } of keys) {
      body.push(`    ${key}: ${this.expr(schema, owner + pascal(key), false)}`);
      if (schema.description) body.push(...docstring(schema.description, "    "));
    }
    return [head, ...(body.length ? body : ["    pass"])];
  }

  private functionalForm(
    name: string,
    total: boolean,
    keys: { key: string; schema: Schema }[],
    owner: string,
  ): string[] {
    const entries = keys.map(
      ({ key, schema }) => `        ${JSON.stringify(key)}: ${this.expr(schema, owner + pascal(key), true)},`,
    );
    return [
      `${name} = TypedDict(`,
      `    "${name}",`,
      "    {",
      ...entries,
      "    },",
      `    total=${total ? "True" : "False"},`,
      ")",
    ];
  }

  /**
   * The Python type of a schema. `hint` names an inline object if there is one; `runtime` marks places
   * Python evaluates (aliases, functional TypedDicts), where a schema's name is quoted as a forward
   * reference: class bodies are not evaluated (`from __future__ import annotations`).
   */
  private expr(schema: Schema, hint: string, runtime: boolean): string {
    if (schema.$ref) {
      const name = refName(schema.$ref);
      const ref = runtime ? JSON.stringify(name) : name;
      // A nullable object schema is a TypedDict of its own: null goes where it is used.
      const target = this.schemas[name];
      const nullable = Array.isArray(target.type) && target.type.includes("null") && this.isObject(target);
      return nullable ? `Optional[${ref}]` : ref;
    }
    if (schema.const !== undefined) return `Literal[${pyLiteral(schema.const)}]`;
    if (schema.enum) {
      const nonNull = schema.enum.filter((v) => v !== null);
      const lit = `Literal[${nonNull.map(pyLiteral).join(", ")}]`;
      return nonNull.length < schema.enum.length ? `Optional[${lit}]` : lit;
    }
    const members = schema.oneOf ?? schema.anyOf;
    if (members)
      return this.union(members.map((m, i) => this.expr(m, `${hint}${members.length > 1 ? i + 1 : ""}`, runtime)));
    if (schema.allOf) {
      // allOf of one $ref and description-only parts (a reference with its own description).
      const refs = schema.allOf.filter((s) => s.$ref || this.isObject(s));
      if (refs.length === 1) return this.expr(refs[0], hint, runtime);
      const name = this.fresh(hint);
      this.typedDict(name, schema);
      return runtime ? JSON.stringify(name) : name;
    }
    const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
    if (types.length === 0) return "Any";
    return this.union(types.map((t) => this.single(t, schema, hint, runtime)));
  }

  private single(type: string, schema: Schema, hint: string, runtime: boolean): string {
    switch (type) {
      case "null":
        return "None";
      case "string":
        return "str";
      case "integer":
        return "int";
      case "number":
        return "float";
      case "boolean":
        return "bool";
      case "array": {
        if (schema.prefixItems) {
          return `tuple[${schema.prefixItems.map((s, i) => this.expr(s, `${hint}${i + 1}`, runtime)).join(", ")}]`;
        }
        return `list[${schema.items ? this.expr(schema.items, `${hint}Item`, runtime) : "Any"}]`;
      }
      case "object": {
        if (this.isObject(schema)) {
          const name = this.fresh(hint);
          this.typedDict(name, schema);
          return runtime ? JSON.stringify(name) : name;
        }
        const extra = schema.additionalProperties;
        const value = typeof extra === "object" ? this.expr(extra, `${hint}Value`, runtime) : "Any";
        return `dict[str, ${value}]`;
      }
      default:
        throw new Error(`generate-python: no Python type for JSON Schema type ${type}`);
    }
  }

  /** Union of member types, duplicates dropped, None last as Optional. */
  private union(members: string[]): string {
    const unique = [...new Set(members)];
    const nonNull = unique.filter((m) => m !== "None");
    const inner = nonNull.length === 1 ? nonNull[0] : `Union[${nonNull.join(", ")}]`;
    if (nonNull.length === 0) return "None";
    return nonNull.length < unique.length ? `Optional[${inner}]` : inner;
  }
}

/** The text of types.py for an OpenAPI document. */
export function pythonTypes(openapi: {
  info?: { version?: string };
  components: { schemas: Record<string, Schema> };
}): string {
  const body = new Generator(openapi.components.schemas).run();
  const header = [
    "# GENERATED by scripts/generate-python.ts from sdk/openapi.json: do not edit.",
    "# Regenerate with `npm run sdk` (test/node/python-types.test.ts fails when this file is stale).",
    '"""The API\'s request and response types, one TypedDict per schema of the OpenAPI document."""',
    "",
    "from __future__ import annotations",
    "",
    "from typing import Any, Literal, Optional, TypeAlias, TypedDict, Union",
  ];
  return `${header.join("\n")}\n\n\n${body}\n`;
}

/** Writes types.py from the committed document; returns its path. */
export function generatePython(out = PYTHON_TYPES): string {
  const openapi = JSON.parse(readFileSync(OPENAPI, "utf8"));
  writeFileSync(out, pythonTypes(openapi));
  return out;
}

if (import.meta.main) console.log(`Python types written to ${generatePython()}`);
