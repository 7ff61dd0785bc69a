/**
 * Request validation with TypeBox's compiled checkers. Bodies are checked as sent (no coercion:
 * `"42"` for a number is a 400). Path parameters, query strings and headers arrive as strings, so
 * a value that does not check as it is gets TypeBox's conversion (e.g. `"2"` → 2) and is checked
 * again; values that already check (most path parameters) skip the conversion. The conversion
 * would truncate a fraction to a whole number (`limit=1.5` → 1): a whole-number parameter whose
 * text is not a whole decimal number is refused before it (`limit=1.5`, `limit=1e3` are 400).
 */
import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';

const WHOLE_NUMBER = /^-?\d+$/;

/** The top-level properties of an object schema that take a whole number. */
function integerProperties(schema: TSchema): string[] {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties;
  if (properties === undefined) return [];
  return Object.entries(properties)
    .filter(([, p]) => p.type === 'integer')
    .map(([name]) => name);
}

export const validatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  const checker = Compile(schema);
  const convert = httpPart !== 'body';
  const integers = convert ? integerProperties(schema) : [];
  return (value: unknown) => {
    if (checker.Check(value)) return { value };
    if (convert) {
      const raw = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
      const fractional = integers.filter((n) => typeof raw[n] === 'string' && !WHOLE_NUMBER.test(raw[n]));
      if (fractional.length > 0)
        return {
          error: fractional.map((n) => ({
            keyword: 'type',
            instancePath: `/${n}`,
            schemaPath: `#/properties/${n}/type`,
            params: { type: 'integer' },
            message: 'must be integer',
          })) as unknown as FastifySchemaValidationError[],
        };
      const converted: unknown = Value.Convert(schema, value);
      if (checker.Check(converted)) return { value: converted };
      return { error: checker.Errors(converted) as unknown as FastifySchemaValidationError[] };
    }
    return { error: checker.Errors(value) as unknown as FastifySchemaValidationError[] };
  };
};
