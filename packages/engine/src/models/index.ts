/** The model store: manifest, filesystem store, configuration and errors. */
export * from './manifest.js';
export * from './config.js';
export * from './manifest-file.js';
export * from './errors.js';
export { FsModelStore, createModelStore } from './store.js';
export type {
  ModelStore,
  EnsureOptions,
  InstalledModel,
  ModelProgressEvent,
  ModelSourceKind,
  ModelStatus,
  ModelFileStatus,
  PinSource,
  VerifyReport,
  VerifyFileReport,
  VerifyState,
  UnreachableSource,
} from './store.js';
export { LOCK_FILE_NAME } from './lock-file.js';
export type { LockFileData, LockedModel, LockedFile } from './lock-file.js';
export { hashFile } from './transfer.js';
export { UNREACHABLE_FILE_NAME, DEFAULT_UNREACHABLE_TTL_MS } from './unreachable.js';
