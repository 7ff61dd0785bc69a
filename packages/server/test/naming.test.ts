/**
 * The naming rule of the API (docs/api.md › Field names), checked on every property name of every
 * schema in the OpenAPI document: lowerCamelCase, except the Bench run family that the interface
 * fixes in snake_case, and keys that are data rather than fields (listed one by one below).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

interface Schema {
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema | boolean;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  $ref?: string;
}
interface Operation {
  operationId: string;
  parameters?: Array<{ name: string; in: string }>;
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
}
const document = JSON.parse(
  readFileSync(new URL('../../../openapi/openapi.json', import.meta.url), 'utf8'),
) as { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };

/**
 * The Bench run family: the interface names its fields in snake_case (`model_id`, `runner_id`);
 * a run's scorecard, the comparison of runs and a model's baseline run belong to it.
 */
const SNAKE_SCHEMAS = new Set([
  'BenchRun',
  'CreateBenchRunBody',
  'BenchVideo',
  'BenchLogLine',
  'BenchScorecard',
  'BenchComparison',
  'ModelBaseline',
  'SetModelBaselineBody',
]);
/** Operations of the Bench run family whose query parameters are snake_case too. */
const SNAKE_OPERATIONS = new Set(['compareBenchRuns']);
/** Keys that are data, not field names: VBench's prompt-info keys, and HTTP header names. */
const DATA_KEYS = new Set([
  'Auxiliary.object_a',
  'Auxiliary.object_b',
  'Auxiliary.appearance_style',
  'UploadUrlResponse.Content-Type',
  'UploadUrlResponse.Content-Length',
]);

const CAMEL = /^[a-z][a-zA-Z0-9]*$/;
const SNAKE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

/** Every property name of `schema` (not following $ref: each component is checked on its own). */
function propertyNames(schema: Schema | boolean | undefined, out: string[] = []): string[] {
  if (!schema || typeof schema !== 'object' || schema.$ref) return out;
  for (const [name, sub] of Object.entries(schema.properties ?? {})) {
    out.push(name);
    propertyNames(sub, out);
  }
  propertyNames(schema.items, out);
  propertyNames(schema.additionalProperties, out);
  for (const list of [schema.anyOf, schema.oneOf, schema.allOf])
    for (const s of list ?? []) propertyNames(s, out);
  return out;
}

describe('the naming rule', () => {
  const checked: string[] = [];
  const wrong: string[] = [];
  const check = (where: string, schemaName: string | null, names: string[], snake = false) => {
    for (const name of names) {
      if (schemaName && DATA_KEYS.has(`${schemaName}.${name}`)) continue;
      const rule = snake || (schemaName && SNAKE_SCHEMAS.has(schemaName)) ? SNAKE : CAMEL;
      checked.push(`${where}.${name}`);
      if (!rule.test(name))
        wrong.push(`${where}.${name} (${rule === SNAKE ? 'snake_case' : 'lowerCamelCase'})`);
    }
  };
  for (const [name, schema] of Object.entries(document.components.schemas))
    check(`#/components/schemas/${name}`, name, propertyNames(schema));
  for (const [path, ops] of Object.entries(document.paths))
    for (const op of Object.values(ops)) {
      const where = `${op.operationId} (${path})`;
      check(
        where,
        null,
        (op.parameters ?? []).filter((p) => p.in !== 'header').map((p) => p.name),
        SNAKE_OPERATIONS.has(op.operationId),
      );
      for (const c of Object.values(op.requestBody?.content ?? {}))
        check(`${where} body`, null, propertyNames(c.schema));
      for (const [status, r] of Object.entries(op.responses))
        for (const c of Object.values(r.content ?? {}))
          check(`${where} ${status}`, null, propertyNames(c.schema));
    }

  it('names every field in lowerCamelCase, the Bench run family in snake_case', () => {
    expect(checked.length).toBeGreaterThan(100);
    expect(wrong).toEqual([]);
  });

  it('keeps the fields the interface fixes', () => {
    const props = (name: string) => Object.keys(document.components.schemas[name]?.properties ?? {});
    expect(props('CreateBenchRunBody')).toEqual(
      expect.arrayContaining(['name', 'dimensions', 'model_id', 'runner_id']),
    );
    expect(props('BenchRun')).toEqual(
      expect.arrayContaining(['id', 'name', 'dimensions', 'model_id', 'runner_id', 'status']),
    );
    expect(props('ScoreUploadUrlBody')).toEqual(
      expect.arrayContaining(['fileName', 'contentType', 'prompt']),
    );
    expect(props('ConfirmUploadBody')).toEqual(['videoId']);
    expect(props('UploadUrlResponse')).toEqual(expect.arrayContaining(['uploadUrl', 'videoId']));
  });

  it('spells a runner the same in GET /runners and inside GET /models', () => {
    const runner = document.components.schemas.Runner!.properties!;
    const embedded = document.components.schemas.Model!.properties!.runners!.items!.properties!;
    for (const name of Object.keys(embedded)) expect(Object.keys(runner)).toContain(name);
  });
});
