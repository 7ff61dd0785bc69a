export * from './contract.js';
export * from './method-contract.js';
export {
  listDimensions,
  getDimension,
  isDimensionId,
  normalisationOf,
  categoryOf,
  VBENCH_MODEL_IDS,
} from './registry.js';
export type { RegistryOptions, MethodSpec } from './registry.js';
export {
  normalise,
  computeLeaderboard,
  computeLeaderboardPresent,
  QUALITY_WEIGHT,
  SEMANTIC_WEIGHT,
} from './leaderboard.js';
export type { Leaderboard, PartialLeaderboard } from './leaderboard.js';
export { METHODS, getMethod } from './dimensions/index.js';
export { roundHalfEven } from './dimensions/common.js';
export { createEngine } from './engine.js';
export { modelPrecision } from './engine.js';
export { DEFAULT_INFERENCE, resolveInference, inferenceOptionsFromEnv } from './inference/settings.js';
export type { InferenceOptions, InferenceSettings, ExecutionProviderName } from './inference/settings.js';
export type { ModelFiles } from './inference/job.js';
export type { ModelResolver } from './pipeline/evaluate.js';
export { MODEL_METHODS, SUBSTITUTE_METHOD_IDS } from './dimensions/model/index.js';
export type { CreateEngineOptions } from './engine.js';
export type { MethodCatalog, CatalogOptions } from './workers/catalog-types.js';
export { DEFAULT_LIMITS, resolveLimits } from './decode/limits.js';
export { uniformIndices, sampleIndices } from './decode/sampling.js';
export { createDecoder } from './decode/decoder.js';
export type { Decoder, DecoderOptions } from './decode/decoder.js';
export type { FrameGroup, FrameOutput, OutputFrame } from './decode/frame-stream.js';
export type { ProbedVideo } from './decode/probe.js';
export { planEvaluation } from './pipeline/plan.js';
export type { EvaluationPlan, PlannedOutput } from './pipeline/plan.js';
export { defaultFfmpegPath, defaultFfprobePath } from './decode/binaries.js';
export * from './models/index.js';
export * from './demo/index.js';
export * from './prompts/index.js';
