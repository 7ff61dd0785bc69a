/**
 * Schema validation failures in words: each failed rule becomes one sentence that names the field
 * as a client wrote it (`prompt`, `auxiliary.object`, `dimensions[2]`, the query parameter
 * `limit`) and says the rule in plain English — never the validator's own text ("body/prompt must
 * not have more than 2000 characters"). The code stays `validation_failed` (or `invalid_field` for
 * fields the route does not accept, worded in `error-handler.ts`).
 */

/** One failure as the validator reports it (TypeBox's error shape). */
export interface ValidationIssue {
  keyword?: string;
  instancePath?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** At most this many sentences in one detail. */
const MAX_SENTENCES = 5;

const TYPE_WORDS: Record<string, string> = {
  string: 'text (a JSON string)',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  object: 'a JSON object',
  array: 'a list (a JSON array)',
  null: 'null',
};

const FORMAT_WORDS: Record<string, string> = {
  uri: 'an absolute URL',
  'date-time': 'a date and time (RFC 3339, e.g. 2026-01-31T12:00:00Z)',
  email: 'an e-mail address',
  uuid: 'a UUID',
};

/** The schemas' patterns, in words (a pattern not listed here reads "is not in the accepted form"). */
const PATTERN_WORDS: Record<string, string> = {
  '^[^\\u0000-\\u001f\\u007f]+$': 'must not contain control characters (line breaks, tabs, …)',
  '^[A-Za-z0-9][A-Za-z0-9._:/-]*$':
    'must start with a letter or a digit and contain only letters, digits and . _ : / -',
};

/**
 * The detail of a `validation_failed` answer. `context` is Fastify's part of the request (`body`,
 * `querystring`, `params`, `headers`); `input` that part as received, to say how long a value was.
 */
export function describeValidation(
  issues: readonly ValidationIssue[],
  context: string,
  input?: unknown,
): string {
  // Issues of one place are read together (a union's alternatives say "one of …" once).
  const byPath = new Map<string, ValidationIssue[]>();
  for (const issue of issues) {
    if (issue.keyword === 'boolean') continue;
    const at = issue.instancePath ?? '';
    byPath.set(at, [...(byPath.get(at) ?? []), issue]);
  }
  const sentences: string[] = [];
  for (const [at, here] of byPath) sentences.push(...sentencesAt(at, here, context, valueAt(input, at)));
  const unique = [...new Set(sentences)];
  if (unique.length === 0) return `${partName(context)} is not valid`;
  const shown = unique.slice(0, MAX_SENTENCES);
  const more = unique.length - shown.length;
  return `${shown.join('; ')}${more > 0 ? `; and ${more} more problem${more === 1 ? '' : 's'}` : ''}`;
}

function sentencesAt(at: string, issues: ValidationIssue[], context: string, value: unknown): string[] {
  const name = fieldName(at, context);
  // A union (`anyOf`): its alternatives' types and constants make one sentence.
  if (issues.some((i) => i.keyword === 'anyOf')) {
    const consts = issues.filter((i) => i.keyword === 'const').map((i) => i.params?.allowedValue);
    const types = issues.filter((i) => i.keyword === 'type').map((i) => typeWords(i.params?.type));
    if (consts.length > 0 && types.length === 0) return [`${name} must be one of: ${listValues(consts)}`];
    if (types.length > 0 && consts.length === 0) return [`${name} must be ${orList(types)}`];
    const rest = issues.filter((i) => i.keyword !== 'anyOf' && i.keyword !== 'type' && i.keyword !== 'const');
    if (rest.length > 0) return rest.map((i) => sentence(i, at, context, value));
    return [`${name} is not one of the accepted forms`];
  }
  return issues.map((i) => sentence(i, at, context, value));
}

function sentence(issue: ValidationIssue, at: string, context: string, value: unknown): string {
  const name = fieldName(at, context);
  const p = issue.params ?? {};
  const limit = typeof p.limit === 'number' ? p.limit : Number(p.limit);
  switch (issue.keyword) {
    case 'required': {
      const missing = Array.isArray(p.requiredProperties)
        ? p.requiredProperties.map(String)
        : typeof p.missingProperty === 'string'
          ? [p.missingProperty]
          : [];
      const names = missing.map((m) => fieldName(`${at}/${m}`, context));
      if (names.length === 0) return `${name} lacks a required field`;
      return `${andList(names)} ${names.length === 1 ? 'is' : 'are'} required`;
    }
    case 'minLength':
      return limit <= 1
        ? `${name} must not be empty`
        : `${name} must be at least ${count(limit, 'character')} long${lengthNow(value)}`;
    case 'maxLength':
      return `${name} must be at most ${count(limit, 'character')} long${lengthNow(value)}`;
    case 'minItems':
      return limit <= 1
        ? `${name} must list at least one item (it is empty)`
        : `${name} must list at least ${count(limit, 'item')}${itemsNow(value)}`;
    case 'maxItems':
      return `${name} must list at most ${count(limit, 'item')}${itemsNow(value)}`;
    case 'uniqueItems':
      return `${name} must not list the same value twice`;
    case 'minimum':
      return `${name} must be at least ${limit}`;
    case 'maximum':
      return `${name} must be at most ${limit}`;
    case 'exclusiveMinimum':
      return `${name} must be greater than ${limit}`;
    case 'exclusiveMaximum':
      return `${name} must be less than ${limit}`;
    case 'type':
      return `${name} must be ${typeWords(p.type)}`;
    case 'const':
      return `${name} must be ${listValues([p.allowedValue])}`;
    case 'enum':
      return `${name} must be one of: ${listValues(Array.isArray(p.allowedValues) ? p.allowedValues : [])}`;
    case 'format': {
      const format = typeof p.format === 'string' ? p.format : '';
      return `${name} must be ${FORMAT_WORDS[format] ?? `in the ${format} format`}`;
    }
    case 'pattern':
      return `${name} ${PATTERN_WORDS[String(p.pattern)] ?? 'is not in the accepted form'}`;
    case 'additionalProperties': {
      const extra = p.additionalProperties ?? p.additionalProperty;
      const names = (Array.isArray(extra) ? extra : [extra]).map(String);
      return `${partName(context)} has ${names.length === 1 ? 'a parameter' : 'parameters'} the route does not accept: ${names.join(', ')}`;
    }
    default:
      return `${name} is not valid`;
  }
}

/** `prompt`, `auxiliary.object`, `dimensions[2]`; the query parameter `limit`; `the body` for the whole. */
function fieldName(at: string, context: string): string {
  const parts = at
    .split('/')
    .slice(1)
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (parts.length === 0) return partName(context);
  const path = parts.reduce(
    (out, part) => (/^\d+$/.test(part) ? `${out}[${part}]` : out === '' ? part : `${out}.${part}`),
    '',
  );
  switch (context) {
    case 'querystring':
      return `the query parameter ${path}`;
    case 'params':
      return `the path parameter ${path}`;
    case 'headers':
      return `the header ${path}`;
    default:
      return path;
  }
}

function partName(context: string): string {
  switch (context) {
    case 'querystring':
      return 'the query string';
    case 'params':
      return 'the path';
    case 'headers':
      return 'the headers';
    default:
      return 'the body';
  }
}

function valueAt(input: unknown, at: string): unknown {
  let v = input;
  for (const part of at.split('/').slice(1)) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[part.replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  return v;
}

function typeWords(type: unknown): string {
  const t = String(type);
  return TYPE_WORDS[t] ?? t;
}

function lengthNow(value: unknown): string {
  return typeof value === 'string' ? ` (it has ${[...value].length})` : '';
}

function itemsNow(value: unknown): string {
  return Array.isArray(value) ? ` (it has ${value.length})` : '';
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function listValues(values: readonly unknown[]): string {
  return values.map((v) => JSON.stringify(v)).join(', ');
}

function andList(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1) ?? ''}`;
}

function orList(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items.at(-1) ?? ''}`;
}
