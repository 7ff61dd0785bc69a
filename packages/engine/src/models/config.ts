/** Model store configuration: explicit options, and how they are read from the environment. */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ModelManifestEntry } from './manifest.js';
import { mergeManifest, readManifestFile } from './manifest-file.js';

export const DEFAULT_HUB_URL = 'https://huggingface.co';
export const DEFAULT_GITHUB_RAW_URL = 'https://raw.githubusercontent.com';

export type FetchFn = (input: string, init?: RequestInit) => Promise<Response>;

export interface ModelStoreOptions {
  /** Cache folder (default: `modelsCacheDir(env)`). */
  cacheDir: string;
  /** A folder laid out as `<dir>/<repo>/<path>` (e.g. copies of the hub repositories); tried first. */
  localDir?: string | null;
  /** A mirror with the hub's layout: `<mirror>/<repo>/resolve/<revision>/<path>`; tried before the hub. */
  mirrorUrl?: string | null;
  /** The hub (default https://huggingface.co); tests point it at a local server. */
  hubUrl?: string;
  /** Raw files of GitHub-hosted models (default https://raw.githubusercontent.com). */
  githubRawUrl?: string;
  /** Never use the network: only the cache and `localDir`. */
  offline?: boolean;
  /** The manifest (default: `MODEL_MANIFEST`). */
  manifest?: readonly ModelManifestEntry[];
  /** HTTP client (default: global fetch). */
  fetch?: FetchFn;
  /** Attempts per source after the first, each resuming from the partial file (default 3). */
  retries?: number;
  /** A transfer attempt with no byte for this long fails and is retried (default 60 s). */
  idleTimeoutMs?: number;
  /** First retry delay; doubles per attempt (default 500 ms). */
  retryDelayMs?: number;
  /** A pull lock whose heartbeat is older than this is stale (default 60 s). */
  lockStaleMs?: number;
  /** How long to wait for another process's pull of the same model (default 30 min). */
  lockTimeoutMs?: number;
  /** Poll interval while waiting for a lock (default 250 ms). */
  lockPollMs?: number;
  /**
   * How long a source that could not be reached is skipped, by every process using this cache
   * (`<cacheDir>/unreachable.json`; default 5 min; 0 never remembers).
   */
  unreachableTtlMs?: number;
}

/** `VESTA_MODELS_DIR`, else `$XDG_CACHE_HOME/vesta/models`, else `~/.cache/vesta/models`. */
export function modelsCacheDir(env: Record<string, string | undefined>): string {
  if (env.VESTA_MODELS_DIR) return resolve(env.VESTA_MODELS_DIR);
  const base = env.XDG_CACHE_HOME ? resolve(env.XDG_CACHE_HOME) : join(homedir(), '.cache');
  return join(base, 'vesta', 'models');
}

function truthy(value: string | undefined): boolean {
  return value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';
}

/**
 * Store options from environment variables: `VESTA_MODELS_DIR`, `VESTA_MODELS_LOCAL_DIR`,
 * `VESTA_MODELS_MIRROR`, `VESTA_OFFLINE` (`1`/`true`), `VESTA_MODELS_UNREACHABLE_TTL_SECONDS`
 * (default 300; 0 never remembers an unreachable source), `VESTA_MODELS_MANIFEST` (a JSON file of
 * extra entries; throws `ManifestError` when it is invalid). Explicit `overrides` win.
 */
export function modelStoreOptionsFromEnv(
  env: Record<string, string | undefined>,
  overrides: Partial<ModelStoreOptions> = {},
): ModelStoreOptions {
  return {
    cacheDir: modelsCacheDir(env),
    localDir: env.VESTA_MODELS_LOCAL_DIR ? resolve(env.VESTA_MODELS_LOCAL_DIR) : null,
    mirrorUrl: env.VESTA_MODELS_MIRROR || null,
    offline: truthy(env.VESTA_OFFLINE),
    ...(env.VESTA_MODELS_UNREACHABLE_TTL_SECONDS !== undefined &&
    /^\d+$/.test(env.VESTA_MODELS_UNREACHABLE_TTL_SECONDS.trim())
      ? { unreachableTtlMs: Number(env.VESTA_MODELS_UNREACHABLE_TTL_SECONDS.trim()) * 1000 }
      : {}),
    ...(env.VESTA_MODELS_MANIFEST
      ? { manifest: mergeManifest(readManifestFile(resolve(env.VESTA_MODELS_MANIFEST))) }
      : {}),
    ...overrides,
  };
}
