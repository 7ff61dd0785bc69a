/**
 * Inference settings: which execution provider sessions use, the weight precision models are
 * pulled and loaded at, how many frames go through a model per run and how many sessions a
 * worker keeps loaded. Plain data: it travels to the worker threads in the job message.
 */
import type { Precision } from '../models/manifest.js';

/**
 * `cpu` (default); `cuda` needs onnxruntime-node's CUDA provider libraries and a CUDA GPU (a
 * session fails with `model_unavailable` when they are missing); `auto` uses CUDA when it loads and
 * the CPU otherwise.
 */
export type ExecutionProviderName = 'cpu' | 'cuda' | 'auto';

export interface InferenceSettings {
  provider: ExecutionProviderName;
  /** Default weight precision; a model not published at it uses its own default (fp32). */
  precision: Precision;
  /** Frames per session run (memory: batch × 3 × 224 × 224 × 4 bytes of input per model). */
  batchSize: number;
  /** onnxruntime intra-op threads per session; 0 lets onnxruntime choose. */
  intraOpThreads: number;
  /** Sessions a worker keeps loaded (least recently used are released beyond this). */
  maxSessions: number;
}

export type InferenceOptions = Partial<InferenceSettings>;

export const DEFAULT_INFERENCE: Readonly<InferenceSettings> = {
  provider: 'cpu',
  precision: 'fp32',
  batchSize: 8,
  intraOpThreads: 1,
  maxSessions: 6,
};

export function resolveInference(options: InferenceOptions = {}): InferenceSettings {
  const s = { ...DEFAULT_INFERENCE, ...options };
  if (s.provider !== 'cpu' && s.provider !== 'cuda' && s.provider !== 'auto')
    throw new RangeError(`unknown execution provider "${String(s.provider)}"`);
  if (!(Number.isInteger(s.batchSize) && s.batchSize >= 1 && s.batchSize <= 256))
    throw new RangeError('batchSize must be an integer in 1..256');
  if (!(Number.isInteger(s.intraOpThreads) && s.intraOpThreads >= 0))
    throw new RangeError('intraOpThreads must be an integer >= 0');
  if (!(Number.isInteger(s.maxSessions) && s.maxSessions >= 1))
    throw new RangeError('maxSessions must be an integer >= 1');
  return s;
}

/**
 * Settings from the environment: `VESTA_EP` (`cpu` | `cuda` | `auto`), `VESTA_PRECISION` (`fp32` | `fp16` |
 * `q8`), `VESTA_INFERENCE_BATCH`, `VESTA_INFERENCE_THREADS`.
 */
export function inferenceOptionsFromEnv(env: Record<string, string | undefined>): InferenceOptions {
  const out: InferenceOptions = {};
  if (env.VESTA_EP) out.provider = env.VESTA_EP as ExecutionProviderName;
  if (env.VESTA_PRECISION) out.precision = env.VESTA_PRECISION as Precision;
  if (env.VESTA_INFERENCE_BATCH) out.batchSize = Number(env.VESTA_INFERENCE_BATCH);
  if (env.VESTA_INFERENCE_THREADS) out.intraOpThreads = Number(env.VESTA_INFERENCE_THREADS);
  return out;
}
