/**
 * Names the shared schemas of the OpenAPI document. Route schemas carry a `title` (the TypeBox
 * schema's name, e.g. `BenchRun`); @fastify/swagger inlines them wherever a route uses them, so
 * this pass moves every titled schema to `components.schemas[title]` and leaves a `$ref` in its
 * place. Both SDKs generate their types from those names (openapi-typescript for TypeScript,
 * python/scripts/generate_types.py for Python).
 *
 * Two different schemas under one title are a bug in the route schemas and throw here, so the
 * document can never name two shapes alike. A use that only adds its own `description` keeps it
 * next to the `$ref` (OpenAPI 3.1 allows sibling keywords).
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (value: Json | undefined): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const PREFIX = '#/components/schemas/';
const refTo = (title: string): string => `${PREFIX}${title}`;

/** Canonical text of a schema, for comparing two uses of one title. */
function canonical(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value))
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k]!)}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

/** Returns a copy of `doc` whose titled schemas live in `components.schemas` and are used by `$ref`. */
export function nameSharedSchemas<T>(doc: T): T {
  const copy = JSON.parse(JSON.stringify(doc)) as JsonObject;
  const named = new Map<string, { schema: JsonObject; shape: string }>();

  const descriptions = new Map<string, Set<string | undefined>>();

  const visit = (node: Json): Json => {
    if (Array.isArray(node)) return node.map(visit);
    if (!isObject(node)) return node;
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(node)) out[k] = visit(v);
    const title = out.title;
    if (typeof title !== 'string' || !/^[A-Z][A-Za-z0-9]*$/.test(title)) return out;
    const { title: _title, description, ...rest } = out;
    const shape = canonical(rest);
    const seen = named.get(title);
    if (seen === undefined) named.set(title, { schema: rest, shape });
    else if (seen.shape !== shape)
      throw new Error(`OpenAPI: two different schemas are both titled ${title}; give one another title`);
    const text = typeof description === 'string' ? description : undefined;
    descriptions.set(title, (descriptions.get(title) ?? new Set()).add(text));
    return text === undefined ? { $ref: refTo(title) } : { $ref: refTo(title), description: text };
  };

  // A description every use shares belongs to the component; one that varies stays with each use.
  const shared = (title: string): string | undefined => {
    const texts = descriptions.get(title);
    return texts?.size === 1 ? [...texts][0] : undefined;
  };
  const tidy = (node: Json): Json => {
    if (Array.isArray(node)) return node.map(tidy);
    if (!isObject(node)) return node;
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(node)) out[k] = tidy(v);
    const ref = out.$ref;
    if (typeof ref === 'string' && ref.startsWith(PREFIX) && shared(ref.slice(PREFIX.length)) !== undefined)
      delete out.description;
    return out;
  };

  copy.paths = tidy(visit(copy.paths ?? {}));
  const components = isObject(copy.components) ? copy.components : {};
  const existing = isObject(components.schemas) ? components.schemas : {};
  const schemas: JsonObject = { ...existing };
  for (const name of [...named.keys()].sort()) {
    const schema = tidy(named.get(name)!.schema) as JsonObject;
    const description = shared(name);
    schemas[name] = description === undefined ? schema : { ...schema, description };
  }
  copy.components = { ...components, schemas };
  return copy as T;
}
