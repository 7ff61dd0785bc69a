/**
 * The smallest body a JSON schema accepts (required properties only), so that a test can get past
 * validation generically on any route and reach its handler.
 */
type Schema = Record<string, unknown>;

export function sampleOf(schema: unknown): unknown {
  const s = (schema ?? {}) as Schema;
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  if (Array.isArray(s.anyOf)) return sampleOf(s.anyOf[0]);
  if (Array.isArray(s.oneOf)) return sampleOf(s.oneOf[0]);
  switch (s.type) {
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, unknown>;
      const required = (s.required ?? []) as string[];
      return Object.fromEntries(required.map((k) => [k, sampleOf(props[k])]));
    }
    case 'array':
      return Array.from({ length: Number(s.minItems ?? 1) }, () => sampleOf(s.items));
    case 'string':
      return 'a'.repeat(Math.max(1, Number(s.minLength ?? 1)));
    case 'integer':
    case 'number':
      return Number(s.minimum ?? 1);
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return {};
  }
}
