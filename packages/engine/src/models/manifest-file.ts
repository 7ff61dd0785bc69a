/**
 * Validation of manifest entries, and extra entries read from a JSON file
 * (`VESTA_MODELS_MANIFEST`): private models, or a replacement for a built-in entry with the same id.
 */
import { readFileSync } from 'node:fs';
import { DIMENSION_IDS } from '../contract.js';
import type { DimensionId } from '../contract.js';
import { isPrecision, MODEL_MANIFEST } from './manifest.js';
import type { ManifestFile, ModelManifestEntry, Precision } from './manifest.js';

export class ManifestError extends Error {
  override readonly name = 'ManifestError';
}

const ID = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const REPO = /^[A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._-]*$/;
const COMMIT = /^[0-9a-f]{40}$/;
const SHA256 = /^[0-9a-f]{64}$/;

function fail(where: string, message: string): never {
  throw new ManifestError(`${where}: ${message}`);
}

function safePath(where: string, value: unknown): string {
  if (typeof value !== 'string' || value === '') fail(where, 'path must be a non-empty string');
  const parts = value.split('/');
  if (
    value.startsWith('/') ||
    value.includes('\\') ||
    parts.some((p) => p === '' || p === '.' || p === '..')
  ) {
    fail(where, `path "${value}" must be relative, with no empty, "." or ".." segments`);
  }
  if (value.endsWith('.partial')) fail(where, `path "${value}" must not end in .partial`);
  return value;
}

function nullable<T>(where: string, value: unknown, check: (v: unknown) => v is T, what: string): T | null {
  if (value === null || value === undefined) return null;
  if (!check(value)) fail(where, `must be ${what} or null`);
  return value;
}

function parseFile(where: string, raw: unknown, precisions: Precision[]): ManifestFile {
  if (typeof raw !== 'object' || raw === null) fail(where, 'must be an object');
  const f = raw as Record<string, unknown>;
  if (typeof f.role !== 'string' || f.role === '') fail(where, 'role must be a non-empty string');
  const precision = nullable(
    where,
    f.precision,
    (v): v is Precision => typeof v === 'string' && isPrecision(v),
    'fp32|fp16|q8',
  );
  if (precision !== null && !precisions.includes(precision))
    fail(where, `precision ${precision} is not in the model's precisions`);
  return {
    role: f.role,
    path: safePath(where, f.path),
    precision,
    size: nullable(
      where,
      f.size,
      (v): v is number => Number.isSafeInteger(v) && (v as number) >= 0,
      'a byte count',
    ),
    sha256: nullable(
      where,
      f.sha256,
      (v): v is string => typeof v === 'string' && SHA256.test(v),
      'a lower-case hex sha256',
    ),
  };
}

/** Checks one entry (shape, safe paths, one file per weight role and precision); returns a typed copy. */
export function parseManifestEntry(raw: unknown, where = 'manifest entry'): ModelManifestEntry {
  if (typeof raw !== 'object' || raw === null) fail(where, 'must be an object');
  const e = raw as Record<string, unknown>;
  if (typeof e.id !== 'string' || !ID.test(e.id)) fail(where, 'id must match [a-z0-9][a-z0-9._-]*');
  where = `model ${e.id}`;
  const source = e.source as Record<string, unknown> | undefined;
  if (!source || (source.host !== 'huggingface' && source.host !== 'github'))
    fail(where, 'source.host must be huggingface or github');
  if (typeof source.repo !== 'string' || !REPO.test(source.repo))
    fail(where, 'source.repo must be owner/name');
  const revision = nullable(
    where,
    e.revision,
    (v): v is string => typeof v === 'string' && COMMIT.test(v),
    'a 40-hex commit',
  );
  if (!Array.isArray(e.precisions) || e.precisions.length === 0)
    fail(where, 'precisions must be a non-empty array');
  const precisions = e.precisions.map((p) => {
    if (typeof p !== 'string' || !isPrecision(p)) fail(where, `unknown precision ${String(p)}`);
    return p;
  });
  const dimensions = Array.isArray(e.dimensions) ? e.dimensions : [];
  for (const d of dimensions) {
    if (!(DIMENSION_IDS as readonly unknown[]).includes(d)) fail(where, `unknown dimension ${String(d)}`);
  }
  if (!Array.isArray(e.files) || e.files.length === 0) fail(where, 'files must be a non-empty array');
  const files = e.files.map((f, i) => parseFile(`${where}, files[${i}]`, f, precisions));
  const paths = new Set<string>();
  for (const f of files) {
    if (paths.has(f.path)) fail(where, `file ${f.path} is listed twice`);
    paths.add(f.path);
  }
  // Every role that has per-precision files must have exactly one per published precision.
  const weightRoles = new Set(files.filter((f) => f.precision !== null).map((f) => f.role));
  for (const role of weightRoles) {
    for (const p of precisions) {
      const n = files.filter((f) => f.role === role && f.precision === p).length;
      if (n !== 1) fail(where, `role ${role} has ${n} files for precision ${p} (expected 1)`);
    }
  }
  return {
    id: e.id,
    description: typeof e.description === 'string' ? e.description : e.id,
    source: { host: source.host, repo: source.repo },
    revision,
    licence: typeof e.licence === 'string' ? e.licence : 'unknown',
    dimensions: dimensions as DimensionId[],
    precisions,
    files,
    ...(typeof e.notes === 'string' ? { notes: e.notes } : {}),
  };
}

/** Entries from a JSON file (`{"models": [...]}` or a bare array), checked. */
export function readManifestFile(path: string): ModelManifestEntry[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new ManifestError(`cannot read model manifest ${path}: ${(err as Error).message}`);
  }
  const list = Array.isArray(parsed) ? parsed : (parsed as { models?: unknown } | null)?.models;
  if (!Array.isArray(list))
    throw new ManifestError(`model manifest ${path}: expected {"models": [...]} or an array`);
  const entries = list.map((raw, i) => parseManifestEntry(raw, `${path} [${i}]`));
  const ids = new Set<string>();
  for (const e of entries) {
    if (ids.has(e.id)) throw new ManifestError(`model manifest ${path}: id ${e.id} appears twice`);
    ids.add(e.id);
  }
  return entries;
}

/** The built-in manifest with `extra` entries added (an extra entry replaces a built-in one with its id). */
export function mergeManifest(
  extra: readonly ModelManifestEntry[],
  base: readonly ModelManifestEntry[] = MODEL_MANIFEST,
): ModelManifestEntry[] {
  const replaced = new Set(extra.map((e) => e.id));
  return [...base.filter((e) => !replaced.has(e.id)), ...extra];
}
