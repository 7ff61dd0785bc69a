/** Errors of the model store: `EngineError`s with a stable `reason` under the engine code. */
import { EngineError } from '../contract.js';

/**
 * Why a model could not be provided:
 * - `unknown_model`, `unknown_precision`: not in the manifest / not published at that precision;
 * - `offline`: not installed and offline mode forbids fetching it;
 * - `not_found`: no source has the file (HTTP 404 / missing in the local directory);
 * - `download_failed`: network or HTTP error after the retries;
 * - `size_mismatch`, `checksum_mismatch`: the bytes are not the pinned ones (file rejected);
 * - `lock_timeout`: another process held the model's pull lock for too long;
 * - `io_error`: the cache directory could not be written.
 */
export const MODEL_ERROR_REASONS = [
  'unknown_model',
  'unknown_precision',
  'offline',
  'not_found',
  'download_failed',
  'size_mismatch',
  'checksum_mismatch',
  'lock_timeout',
  'io_error',
] as const;
export type ModelErrorReason = (typeof MODEL_ERROR_REASONS)[number];

export class ModelStoreError extends EngineError {
  constructor(
    readonly reason: ModelErrorReason,
    readonly modelId: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super('model_unavailable', message, options);
  }
}

/** The command that installs a model, quoted in every `model_unavailable` message. */
export function pullCommand(modelId: string, precision?: string): string {
  return `vesta models pull ${modelId}${precision && precision !== 'fp32' ? ` --precision ${precision}` : ''}`;
}
