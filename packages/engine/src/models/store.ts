/**
 * The model store: makes the files of a manifest model available on local disk, verified.
 *
 * Cache layout: `<cacheDir>/<modelId>/<path in repo>`, `<file>.partial` while a transfer runs,
 * `<cacheDir>/models.lock.json` (pins and verification marks, see lock-file.ts) and
 * `<cacheDir>/.locks/` (cross-process pull locks).
 *
 * Sources, in order: the local directory (`<localDir>/<repo>/<path>`), the mirror
 * (`<mirror>/<repo>/resolve/<revision>/<path>`), the hub. Offline mode keeps only the local
 * directory. A file reaches its final path only by an atomic rename after its size and sha256
 * matched; partial files are never loaded, and a file whose size or mtime changed since it was
 * last verified is re-hashed before use.
 */
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { EngineError } from '../contract.js';
import type { ModelRef } from '../contract.js';
import { DEFAULT_GITHUB_RAW_URL, DEFAULT_HUB_URL } from './config.js';
import type { FetchFn, ModelStoreOptions } from './config.js';
import { ModelStoreError, pullCommand } from './errors.js';
import { acquireFileLock, LockTimeoutError } from './file-lock.js';
import { ModelLockFile } from './lock-file.js';
import type { LockedFile, LockedModel } from './lock-file.js';
import { filesFor, isPrecision, MODEL_MANIFEST } from './manifest.js';
import type { ManifestFile, ModelManifestEntry, Precision } from './manifest.js';
import { copyToPartial, downloadToPartial, hashFile, TransferError } from './transfer.js';
import { DEFAULT_UNREACHABLE_TTL_MS, originOf, UnreachableMemory } from './unreachable.js';
import type { TransferResult } from './transfer.js';

export type ModelSourceKind = 'local' | 'mirror' | 'hub';

export interface ModelProgressEvent {
  modelId: string;
  precision: Precision;
  /** Repository path of the file being transferred. */
  file: string;
  fileIndex: number;
  fileCount: number;
  source: ModelSourceKind;
  receivedBytes: number;
  /** `null` when the source did not send a length. */
  totalBytes: number | null;
}

export interface EnsureOptions {
  /** Default: the model's first published precision (fp32). */
  precision?: Precision;
  signal?: AbortSignal;
  onProgress?: (event: ModelProgressEvent) => void;
  /** Called when another process is pulling the same model and this call waits for it. */
  onWaitForOtherProcess?: () => void;
  /**
   * Try sources remembered as unreachable too (an explicit `vesta models pull`); by default they
   * are skipped while the failure memory holds (see unreachable.ts).
   */
  retryUnreachable?: boolean;
}

export interface InstalledModel {
  id: string;
  precision: Precision;
  /** Commit of the files (manifest or pinned on first use); `null` when the source never said. */
  revision: string | null;
  /** The model's folder in the cache. */
  dir: string;
  /** Absolute path per file role (`vision`, `text`, `model`, `tokenizer`, `preprocessor`, `head`, …). */
  files: Record<string, string>;
  /** For score records. */
  ref: ModelRef;
  /** True when this call transferred at least one file. */
  fetched: boolean;
}

export type PinSource = 'manifest' | 'lock' | null;

export interface ModelFileStatus {
  path: string;
  role: string;
  precision: Precision | null;
  present: boolean;
  bytesOnDisk: number;
  size: number | null;
  sha256: string | null;
  pinnedBy: PinSource;
}

export interface ModelStatus {
  id: string;
  description: string;
  licence: string;
  dimensions: string[];
  source: { host: string; repo: string };
  revision: string | null;
  revisionPinnedBy: PinSource;
  /** Installed at the default precision. */
  installed: boolean;
  precisions: Array<{ precision: Precision; installed: boolean }>;
  bytesOnDisk: number;
  files: ModelFileStatus[];
  notes?: string;
}

export type VerifyState = 'ok' | 'absent' | 'size_mismatch' | 'checksum_mismatch' | 'pinned_now';

export interface VerifyFileReport {
  path: string;
  precision: Precision | null;
  state: VerifyState;
  expectedSha256: string | null;
  actualSha256: string | null;
}

export interface VerifyReport {
  id: string;
  /** False when a present file did not match its pin (the file was deleted). */
  ok: boolean;
  files: VerifyFileReport[];
}

/** The port the engine and the CLI use; `FsModelStore` is the filesystem implementation. */
export interface ModelStore {
  readonly cacheDir: string;
  readonly offline: boolean;
  readonly manifest: readonly ModelManifestEntry[];
  /** Local paths of a model's files, pulling them first unless offline. */
  ensure(modelId: string, options?: EnsureOptions): Promise<InstalledModel>;
  list(): Promise<ModelStatus[]>;
  /** Re-hashes installed files; files that do not match their pin are deleted. */
  verify(modelIds?: readonly string[], options?: { signal?: AbortSignal }): Promise<VerifyReport[]>;
  /** Deletes a model's files (and with `unpin`, its trust-on-first-use pins). */
  remove(modelId: string, options?: { unpin?: boolean }): Promise<{ removedBytes: number }>;
  /** Cheap check (stat only): every file of the model at `precision` is in the cache. */
  isInstalledSync(modelId: string, precision?: Precision): boolean;
  /** Installed, or fetchable because the store is online (or the local directory has it). */
  isAvailableSync(modelId: string, precision?: Precision): boolean;
  /**
   * A checker that answers as `isAvailableSync`, for many models asked in a row (the dimension
   * registry asks ~27 times). Whether a model is installed is read once per state of the lock file
   * and kept while the lock file is unchanged: every install or removal through a store (this
   * process's or another's: `vesta models pull/rm/verify`, a pull on first use) ends with an
   * atomic rename of `models.lock.json`. The rest (the local directory, sources remembered as
   * unreachable) is read on each call, as `isAvailableSync` does. A model file deleted by hand,
   * outside a store, is seen at the next install or removal (or restart).
   */
  availabilityChecker(): (modelId: string, precision?: Precision) => boolean;
  /**
   * Identifies what is installed, cheaply (one stat of the lock file): it changes with every
   * install or removal through a store, this process's or another's. Null when it cannot be read.
   */
  installedStamp(): string | null;
  /** Sources skipped for now because they could not be reached moments ago (any process). */
  unreachableSources(): UnreachableSource[];
}

export interface UnreachableSource {
  /** e.g. `https://huggingface.co`. */
  origin: string;
  /** Epoch ms when it is tried again. */
  until: number;
  error: string;
}

interface Source {
  kind: ModelSourceKind;
  location: string;
}

function errno(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

async function statOrNull(path: string): Promise<{ size: number; mtimeMs: number } | null> {
  try {
    const s = await stat(path);
    return s.isFile() ? { size: s.size, mtimeMs: s.mtimeMs } : null;
  } catch (err) {
    if (errno(err) === 'ENOENT' || errno(err) === 'ENOTDIR') return null;
    throw err;
  }
}

function statSyncOrNull(path: string): { size: number } | null {
  try {
    const s = statSync(path);
    return s.isFile() ? { size: s.size } : null;
  } catch {
    return null;
  }
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

function encodePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

export class FsModelStore implements ModelStore {
  readonly cacheDir: string;
  readonly offline: boolean;
  readonly manifest: readonly ModelManifestEntry[];
  private readonly localDir: string | null;
  private readonly mirrorUrl: string | null;
  private readonly hubUrl: string;
  private readonly githubRawUrl: string;
  private readonly fetchFn: FetchFn;
  private readonly retries: number;
  private readonly retryDelayMs: number;
  private readonly idleTimeoutMs: number;
  private readonly lockTiming: { staleMs: number; timeoutMs: number; pollMs: number };
  private readonly lockFile: ModelLockFile;
  private readonly unreachable: UnreachableMemory;
  private readonly inflight = new Map<string, Promise<InstalledModel>>();
  /** `isInstalledSync`'s answers for one state of the lock file (see `availabilityChecker`). */
  private installedMemo: { stamp: string; answers: Map<string, boolean> } | null = null;

  constructor(options: ModelStoreOptions) {
    this.cacheDir = options.cacheDir;
    this.offline = options.offline ?? false;
    this.manifest = options.manifest ?? MODEL_MANIFEST;
    this.localDir = options.localDir ?? null;
    this.mirrorUrl = options.mirrorUrl ? trimSlash(options.mirrorUrl) : null;
    this.hubUrl = trimSlash(options.hubUrl ?? DEFAULT_HUB_URL);
    this.githubRawUrl = trimSlash(options.githubRawUrl ?? DEFAULT_GITHUB_RAW_URL);
    this.fetchFn = options.fetch ?? ((input, init) => fetch(input, init));
    this.retries = options.retries ?? 3;
    this.retryDelayMs = options.retryDelayMs ?? 500;
    this.idleTimeoutMs = options.idleTimeoutMs ?? 60_000;
    this.lockTiming = {
      staleMs: options.lockStaleMs ?? 60_000,
      timeoutMs: options.lockTimeoutMs ?? 30 * 60_000,
      pollMs: options.lockPollMs ?? 250,
    };
    this.lockFile = new ModelLockFile(this.cacheDir, this.lockTiming);
    this.unreachable = new UnreachableMemory(
      this.cacheDir,
      options.unreachableTtlMs ?? DEFAULT_UNREACHABLE_TTL_MS,
    );
  }

  // --- lookups -----------------------------------------------------------------------------------

  private entry(modelId: string): ModelManifestEntry {
    const entry = this.manifest.find((m) => m.id === modelId);
    if (!entry) {
      throw new ModelStoreError(
        'unknown_model',
        modelId,
        `unknown model "${modelId}" (known: ${this.manifest.map((m) => m.id).join(', ')})`,
      );
    }
    return entry;
  }

  private precisionOf(entry: ModelManifestEntry, precision: string | undefined): Precision {
    const p = precision ?? entry.precisions[0] ?? 'fp32';
    if (!isPrecision(p) || !entry.precisions.includes(p)) {
      throw new ModelStoreError(
        'unknown_precision',
        entry.id,
        `model ${entry.id} is not published at precision "${p}" (available: ${entry.precisions.join(', ')})`,
      );
    }
    return p;
  }

  private modelDir(modelId: string): string {
    return join(this.cacheDir, modelId);
  }

  /** The lock entry, unless it was pinned for another revision than the manifest's. */
  private locked(entry: ModelManifestEntry, all: Record<string, LockedModel>): LockedModel | undefined {
    const locked = all[entry.id];
    if (locked && entry.revision !== null && locked.revision !== null && locked.revision !== entry.revision) {
      return undefined;
    }
    return locked;
  }

  private sources(entry: ModelManifestEntry, file: ManifestFile, revision: string | null): Source[] {
    const out: Source[] = [];
    if (this.localDir)
      out.push({ kind: 'local', location: join(this.localDir, entry.source.repo, file.path) });
    if (this.offline) return out;
    const ref = encodeURIComponent(revision ?? 'main');
    const path = encodePath(file.path);
    if (this.mirrorUrl)
      out.push({ kind: 'mirror', location: `${this.mirrorUrl}/${entry.source.repo}/resolve/${ref}/${path}` });
    out.push({
      kind: 'hub',
      location:
        entry.source.host === 'github'
          ? `${this.githubRawUrl}/${entry.source.repo}/${ref}/${path}`
          : `${this.hubUrl}/${entry.source.repo}/resolve/${ref}/${path}`,
    });
    return out;
  }

  private result(
    entry: ModelManifestEntry,
    precision: Precision,
    revision: string | null,
    fetched: boolean,
  ): InstalledModel {
    const dir = this.modelDir(entry.id);
    const files: Record<string, string> = {};
    for (const f of filesFor(entry, precision)) files[f.role] = join(dir, f.path);
    return {
      id: entry.id,
      precision,
      revision,
      dir,
      files,
      ref: { id: entry.id, revision: revision ?? 'unpinned', precision },
      fetched,
    };
  }

  // --- ensure ------------------------------------------------------------------------------------

  ensure(modelId: string, options: EnsureOptions = {}): Promise<InstalledModel> {
    let entry: ModelManifestEntry;
    let precision: Precision;
    try {
      entry = this.entry(modelId);
      precision = this.precisionOf(entry, options.precision);
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    const key = `${entry.id}@${precision}`;
    let pending = this.inflight.get(key);
    if (!pending) {
      pending = this.ensureNow(entry, precision, options).finally(() => this.inflight.delete(key));
      this.inflight.set(key, pending);
      return pending;
    }
    // Coalesced: this caller shares the running pull, but its own signal can stop its wait.
    const signal = options.signal;
    if (!signal) return pending;
    return new Promise<InstalledModel>((resolve, reject) => {
      const onAbort = () => reject(new EngineError('aborted', `waiting for model ${modelId} was aborted`));
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      pending.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  private async ensureNow(
    entry: ModelManifestEntry,
    precision: Precision,
    options: EnsureOptions,
  ): Promise<InstalledModel> {
    try {
      const first = await this.checkInstalled(entry, precision);
      if (first.missing.length === 0) return this.result(entry, precision, first.revision, false);
      this.refuseWhenOffline(entry, precision, first.missing);

      const held = await this.acquirePullLock(entry, options);
      try {
        // Another process may have completed the pull while this one waited.
        const again = await this.checkInstalled(entry, precision);
        if (again.missing.length === 0) return this.result(entry, precision, again.revision, false);
        this.refuseWhenOffline(entry, precision, again.missing);
        const revision = await this.pullFiles(entry, precision, again.missing, again.revision, options);
        return this.result(entry, precision, revision, true);
      } finally {
        await held.release();
      }
    } catch (err) {
      if (options.signal?.aborted && !(err instanceof EngineError && err.code !== 'aborted')) {
        throw new EngineError(
          'aborted',
          `pull of model ${entry.id} was aborted (a partial file is kept for resuming)`,
          {
            cause: err,
          },
        );
      }
      if (err instanceof EngineError) throw err;
      throw new ModelStoreError('io_error', entry.id, `model ${entry.id}: ${(err as Error).message}`, {
        cause: err,
      });
    }
  }

  private refuseWhenOffline(entry: ModelManifestEntry, precision: Precision, missing: ManifestFile[]): void {
    if (!this.offline || this.localDir) return;
    throw new ModelStoreError(
      'offline',
      entry.id,
      `model ${entry.id} (${precision}) is not installed and offline mode is on (VESTA_OFFLINE); ` +
        `missing ${missing.map((f) => f.path).join(', ')}. Run \`${pullCommand(entry.id, precision)}\` while online, ` +
        `or set VESTA_MODELS_LOCAL_DIR to a folder that has the files.`,
    );
  }

  private async acquirePullLock(entry: ModelManifestEntry, options: EnsureOptions) {
    try {
      return await acquireFileLock(join(this.cacheDir, '.locks', `${entry.id}.lock`), {
        ...this.lockTiming,
        ...(options.signal ? { signal: options.signal } : {}),
        onWait: () => options.onWaitForOtherProcess?.(),
      });
    } catch (err) {
      if (err instanceof LockTimeoutError) {
        throw new ModelStoreError(
          'lock_timeout',
          entry.id,
          `another process is still pulling model ${entry.id} (${err.message}); retry \`${pullCommand(entry.id)}\` later`,
          { cause: err },
        );
      }
      throw err;
    }
  }

  /**
   * Which files of the model at `precision` still need a transfer. Files whose size or mtime
   * changed since their last check are re-hashed; files that no longer match are deleted.
   */
  private async checkInstalled(
    entry: ModelManifestEntry,
    precision: Precision,
  ): Promise<{ missing: ManifestFile[]; revision: string | null }> {
    const data = await this.lockFile.read();
    const locked = this.locked(entry, data.models);
    const revision = entry.revision ?? locked?.revision ?? null;
    const missing: ManifestFile[] = [];
    const reverified: Record<string, LockedFile> = {};
    const removed: string[] = [];
    for (const file of filesFor(entry, precision)) {
      const path = join(this.modelDir(entry.id), file.path);
      const st = await statOrNull(path);
      if (!st) {
        missing.push(file);
        continue;
      }
      const pin = locked?.files[file.path];
      const expectedSha = file.sha256 ?? pin?.sha256 ?? null;
      const expectedSize = file.size ?? pin?.size ?? null;
      if (
        pin &&
        pin.verifiedMtimeMs === st.mtimeMs &&
        pin.size === st.size &&
        (expectedSha === null || pin.sha256 === expectedSha) &&
        (expectedSize === null || st.size === expectedSize)
      ) {
        continue;
      }
      const actual = await hashFile(path);
      if (
        (expectedSha === null || actual.sha256 === expectedSha) &&
        (expectedSize === null || actual.size === expectedSize)
      ) {
        reverified[file.path] = { size: actual.size, sha256: actual.sha256, verifiedMtimeMs: st.mtimeMs };
      } else {
        await rm(path, { force: true });
        missing.push(file);
        removed.push(file.path);
      }
    }
    // A removed file is written down too: the lock file's rename is what tells availability
    // checkers (`availabilityChecker`, any process) that what is installed changed.
    if (Object.keys(reverified).length > 0 || removed.length > 0) {
      await this.lockFile.update((d) => {
        const m = (d.models[entry.id] ??= { revision, files: {} });
        Object.assign(m.files, reverified);
        for (const path of removed) delete m.files[path]?.verifiedMtimeMs;
      });
    }
    return { missing, revision };
  }

  private async pullFiles(
    entry: ModelManifestEntry,
    precision: Precision,
    missing: ManifestFile[],
    startRevision: string | null,
    options: EnsureOptions,
  ): Promise<string | null> {
    let revision = startRevision;
    const data = await this.lockFile.read();
    const pins = this.locked(entry, data.models)?.files ?? {};
    for (const [index, file] of missing.entries()) {
      const pin = pins[file.path];
      const installed = await this.fetchFile(entry, file, revision, {
        size: file.size ?? pin?.size ?? null,
        sha256: file.sha256 ?? pin?.sha256 ?? null,
        retryUnreachable: options.retryUnreachable === true,
        onBytes: (received, total, source) =>
          options.onProgress?.({
            modelId: entry.id,
            precision,
            file: file.path,
            fileIndex: index,
            fileCount: missing.length,
            source,
            receivedBytes: received,
            totalBytes: total,
          }),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      // Trust on first use: the first file that names its commit pins the revision for the rest.
      if (revision === null && installed.commit) revision = installed.commit;
      const pinnedRevision = revision;
      await this.lockFile.update((d) => {
        const current = this.locked(entry, d.models);
        const model: LockedModel = current ?? { revision: pinnedRevision, files: {} };
        model.revision = pinnedRevision;
        model.files[file.path] = {
          size: installed.size,
          sha256: installed.sha256,
          verifiedMtimeMs: installed.mtimeMs,
        };
        model.pulledAt = new Date().toISOString();
        d.models[entry.id] = model;
      });
    }
    return revision;
  }

  private async fetchFile(
    entry: ModelManifestEntry,
    file: ManifestFile,
    revision: string | null,
    expected: {
      size: number | null;
      sha256: string | null;
      signal?: AbortSignal;
      retryUnreachable: boolean;
      onBytes: (received: number, total: number | null, source: ModelSourceKind) => void;
    },
  ): Promise<TransferResult & { mtimeMs: number }> {
    const finalPath = join(this.modelDir(entry.id), file.path);
    const partial = `${finalPath}.partial`;
    await mkdir(dirname(finalPath), { recursive: true });
    const failures: string[] = [];
    let sawOnlyNotFound = true;
    for (const source of this.sources(entry, file, revision)) {
      let result: TransferResult;
      const remembered =
        source.kind === 'local' || expected.retryUnreachable
          ? undefined
          : this.unreachable.recall(source.location);
      if (remembered !== undefined) {
        sawOnlyNotFound = false;
        failures.push(
          `${source.kind}: ${originOf(source.location)} was unreachable moments ago (${remembered.error}); ` +
            `not tried again before ${new Date(remembered.until).toISOString()}`,
        );
        continue;
      }
      try {
        if (source.kind === 'local') {
          if (!(await statOrNull(source.location))) {
            failures.push(`local: ${source.location} not found`);
            continue;
          }
          result = await copyToPartial(
            source.location,
            partial,
            (r, t) => expected.onBytes(r, t, 'local'),
            expected.signal,
          );
        } else {
          result = await this.downloadWithRetries(
            source.location,
            partial,
            expected.size,
            expected.signal,
            (r, t) => expected.onBytes(r, t, source.kind),
          );
        }
      } catch (err) {
        expected.signal?.throwIfAborted();
        if (err instanceof TransferError && err.kind === 'size_mismatch') {
          await rm(partial, { force: true });
          throw new ModelStoreError(
            'size_mismatch',
            entry.id,
            `model ${entry.id}, ${file.path}: ${err.message}`,
            {
              cause: err,
            },
          );
        }
        if (!(err instanceof TransferError && err.kind === 'not_found')) sawOnlyNotFound = false;
        // Remembered across processes: the next one skips this host for a while.
        if (err instanceof TransferError && err.unreachable)
          await this.unreachable.remember(source.location, err.message);
        failures.push(`${source.kind}: ${(err as Error).message}`);
        continue;
      }
      if (source.kind !== 'local') await this.unreachable.forget(source.location);
      if (expected.size !== null && result.size !== expected.size) {
        await rm(partial, { force: true });
        throw new ModelStoreError(
          'size_mismatch',
          entry.id,
          `model ${entry.id}, ${file.path} from ${source.kind} (${source.location}): ${result.size} bytes, expected ${expected.size}; the file was rejected`,
        );
      }
      if (expected.sha256 !== null && result.sha256 !== expected.sha256) {
        await rm(partial, { force: true });
        throw new ModelStoreError(
          'checksum_mismatch',
          entry.id,
          `model ${entry.id}, ${file.path} from ${source.kind} (${source.location}): sha256 ${result.sha256} does not match the pinned ${expected.sha256}; the file was rejected`,
        );
      }
      await rename(partial, finalPath);
      const st = await stat(finalPath);
      return { ...result, mtimeMs: st.mtimeMs };
    }
    throw new ModelStoreError(
      sawOnlyNotFound ? 'not_found' : 'download_failed',
      entry.id,
      `model ${entry.id}: could not fetch ${file.path} (${failures.join('; ')}). ` +
        `Check the network, VESTA_MODELS_MIRROR or VESTA_MODELS_LOCAL_DIR, then run \`${pullCommand(entry.id)}\` ` +
        `(an interrupted transfer resumes).`,
    );
  }

  private async downloadWithRetries(
    url: string,
    partial: string,
    expectedSize: number | null,
    signal: AbortSignal | undefined,
    onBytes: (received: number, total: number | null) => void,
  ): Promise<TransferResult> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await downloadToPartial(url, partial, {
          fetch: this.fetchFn,
          expectedSize,
          idleTimeoutMs: this.idleTimeoutMs,
          onBytes,
          ...(signal ? { signal } : {}),
        });
      } catch (err) {
        if (!(err instanceof TransferError) || !err.retryable || attempt >= this.retries) throw err;
        await sleep(this.retryDelayMs * 2 ** attempt, undefined, signal ? { signal } : undefined);
      }
    }
  }

  // --- list, verify, remove ----------------------------------------------------------------------

  async list(): Promise<ModelStatus[]> {
    const data = await this.lockFile.read();
    const out: ModelStatus[] = [];
    for (const entry of this.manifest) {
      const locked = this.locked(entry, data.models);
      const files: ModelFileStatus[] = [];
      for (const file of entry.files) {
        const st = await statOrNull(join(this.modelDir(entry.id), file.path));
        const pin = locked?.files[file.path];
        const size = file.size ?? pin?.size ?? null;
        files.push({
          path: file.path,
          role: file.role,
          precision: file.precision,
          present: st !== null && (size === null || st.size === size),
          bytesOnDisk: st?.size ?? 0,
          size,
          sha256: file.sha256 ?? pin?.sha256 ?? null,
          pinnedBy: file.sha256 ? 'manifest' : pin ? 'lock' : null,
        });
      }
      const precisions = entry.precisions.map((precision) => ({
        precision,
        installed: files
          .filter((f) => f.precision === null || f.precision === precision)
          .every((f) => f.present),
      }));
      out.push({
        id: entry.id,
        description: entry.description,
        licence: entry.licence,
        dimensions: [...entry.dimensions],
        source: { ...entry.source },
        revision: entry.revision ?? locked?.revision ?? null,
        revisionPinnedBy: entry.revision ? 'manifest' : locked?.revision ? 'lock' : null,
        installed: precisions[0]?.installed ?? false,
        precisions,
        bytesOnDisk: files.reduce((s, f) => s + f.bytesOnDisk, 0),
        files,
        ...(entry.notes ? { notes: entry.notes } : {}),
      });
    }
    return out;
  }

  async verify(
    modelIds?: readonly string[],
    options: { signal?: AbortSignal } = {},
  ): Promise<VerifyReport[]> {
    const entries =
      modelIds && modelIds.length > 0 ? modelIds.map((id) => this.entry(id)) : [...this.manifest];
    const reports: VerifyReport[] = [];
    for (const entry of entries) {
      const data = await this.lockFile.read();
      const locked = this.locked(entry, data.models);
      const files: VerifyFileReport[] = [];
      const updates: Record<string, LockedFile | null> = {};
      for (const file of entry.files) {
        options.signal?.throwIfAborted();
        const path = join(this.modelDir(entry.id), file.path);
        const pin = locked?.files[file.path];
        const expectedSha = file.sha256 ?? pin?.sha256 ?? null;
        const expectedSize = file.size ?? pin?.size ?? null;
        const st = await statOrNull(path);
        if (!st) {
          files.push({
            path: file.path,
            precision: file.precision,
            state: 'absent',
            expectedSha256: expectedSha,
            actualSha256: null,
          });
          continue;
        }
        const actual = await hashFile(path, options.signal);
        let state: VerifyState;
        if (expectedSize !== null && actual.size !== expectedSize) state = 'size_mismatch';
        else if (expectedSha !== null && actual.sha256 !== expectedSha) state = 'checksum_mismatch';
        else state = expectedSha === null ? 'pinned_now' : 'ok';
        if (state === 'ok' || state === 'pinned_now') {
          updates[file.path] = { size: actual.size, sha256: actual.sha256, verifiedMtimeMs: st.mtimeMs };
        } else {
          await rm(path, { force: true });
          updates[file.path] = pin ? { size: pin.size, sha256: pin.sha256 } : null;
        }
        files.push({
          path: file.path,
          precision: file.precision,
          state,
          expectedSha256: expectedSha,
          actualSha256: actual.sha256,
        });
      }
      if (Object.keys(updates).length > 0) {
        await this.lockFile.update((d) => {
          const model = this.locked(entry, d.models) ?? {
            revision: entry.revision ?? locked?.revision ?? null,
            files: {},
          };
          for (const [path, value] of Object.entries(updates)) {
            if (value) model.files[path] = value;
            else delete model.files[path];
          }
          d.models[entry.id] = model;
        });
      }
      reports.push({
        id: entry.id,
        ok: files.every((f) => f.state === 'ok' || f.state === 'absent' || f.state === 'pinned_now'),
        files,
      });
    }
    return reports;
  }

  async remove(modelId: string, options: { unpin?: boolean } = {}): Promise<{ removedBytes: number }> {
    const entry = this.entry(modelId);
    const status = (await this.list()).find((s) => s.id === entry.id);
    const removedBytes = status?.bytesOnDisk ?? 0;
    await rm(this.modelDir(entry.id), { recursive: true, force: true });
    await this.lockFile.update((d) => {
      const model = d.models[entry.id];
      if (!model) return;
      if (options.unpin) {
        delete d.models[entry.id];
        return;
      }
      for (const f of Object.values(model.files)) delete f.verifiedMtimeMs;
    });
    return { removedBytes };
  }

  isInstalledSync(modelId: string, precision?: Precision): boolean {
    const entry = this.manifest.find((m) => m.id === modelId);
    if (!entry) return false;
    const p = precision ?? entry.precisions[0] ?? 'fp32';
    if (!entry.precisions.includes(p)) return false;
    const locked = this.locked(entry, this.lockFile.readSync().models);
    return filesFor(entry, p).every((file) => {
      const st = statSyncOrNull(join(this.modelDir(entry.id), file.path));
      if (!st) return false;
      const size = file.size ?? locked?.files[file.path]?.size ?? null;
      return size === null || st.size === size;
    });
  }

  unreachableSources(): UnreachableSource[] {
    return this.offline ? [] : this.unreachable.list();
  }

  isAvailableSync(modelId: string, precision?: Precision): boolean {
    return this.availableGiven(modelId, precision, (id, p) => this.isInstalledSync(id, p));
  }

  availabilityChecker(): (modelId: string, precision?: Precision) => boolean {
    // The stamp is read before any answer is computed: an answer is never older than its stamp.
    const stamp = this.installedStamp();
    if (stamp === null || this.installedMemo?.stamp !== stamp)
      this.installedMemo = stamp === null ? null : { stamp, answers: new Map() };
    const answers = this.installedMemo?.answers ?? new Map<string, boolean>();
    const installed = (modelId: string, precision?: Precision): boolean => {
      const key = `${modelId}@${precision ?? ''}`;
      let answer = answers.get(key);
      if (answer === undefined) {
        answer = this.isInstalledSync(modelId, precision);
        answers.set(key, answer);
      }
      return answer;
    };
    return (modelId, precision) => this.availableGiven(modelId, precision, installed);
  }

  /**
   * The lock file's current contents, identified without reading them: a write replaces the file
   * by a rename (a new inode, new change and modification times). One stat, no throw when absent.
   */
  installedStamp(): string | null {
    try {
      const st = statSync(this.lockFile.path, { throwIfNoEntry: false });
      return st ? `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}` : 'absent';
    } catch {
      return null; // unreadable: nothing is kept
    }
  }

  private availableGiven(
    modelId: string,
    precision: Precision | undefined,
    installed: (modelId: string, precision?: Precision) => boolean,
  ): boolean {
    const entry = this.manifest.find((m) => m.id === modelId);
    if (!entry) return false;
    if (installed(modelId, precision)) return true;
    const p = precision ?? entry.precisions[0] ?? 'fp32';
    const localDir = this.localDir;
    const inLocalDir = (): boolean =>
      localDir !== null &&
      filesFor(entry, p).every((f) => statSyncOrNull(join(localDir, entry.source.repo, f.path)) !== null);
    if (this.offline) return inLocalDir();
    // Online, but every remote source of the model was unreachable moments ago: not available now.
    // Only the sources' origins are looked at: the revision (in the path) does not matter here.
    const files = filesFor(entry, p);
    const remote =
      files.length > 0 ? this.sources(entry, files[0]!, null).filter((s) => s.kind !== 'local') : [];
    if (remote.length > 0 && remote.every((s) => this.unreachable.recall(s.location) !== undefined))
      return inLocalDir();
    return true;
  }
}

export function createModelStore(options: ModelStoreOptions): ModelStore {
  return new FsModelStore(options);
}
