/**
 * Request validation with TypeBox's compiled checkers. Bodies are checked as sent (no coercion:
 * `"42"` for a number is a 400). Path parameters, query strings and headers arrive as strings, so
 * a value that does not check as it is gets TypeBox's conversion (e.g. `"2"` → 2) and is checked
 * again; values that already check (most path parameters) skip the conversion.
 */
import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';

export const validatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  const checker = Compile(schema);
  const convert = httpPart !== 'body';
  return (value: unknown) => {
    if (checker.Check(value)) return { value };
    if (convert) {
      const converted: unknown = Value.Convert(schema, value);
      if (checker.Check(converted)) return { value: converted };
      return { error: checker.Errors(converted) as unknown as FastifySchemaValidationError[] };
    }
    return { error: checker.Errors(value) as unknown as FastifySchemaValidationError[] };
  };
};
