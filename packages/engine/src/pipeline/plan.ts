/**
 * Evaluation planning: resolve each requested dimension to a method, check its requirements and
 * ask it for frames. Equal frame requests (sampling, size, channels) share one output; all outputs
 * are then served by one decode of the clip.
 */
import { DIMENSION_IDS, EngineError } from '../contract.js';
import type {
  DimensionFailure,
  DimensionId,
  EvaluateOptions,
  FrameSampling,
  MethodId,
  VideoProbe,
} from '../contract.js';
import type { AnyMethod, FrameRequest } from '../method-contract.js';
import { samplingKey, validateSampling } from '../decode/sampling.js';
import type { CatalogOptions, MethodCatalog } from '../workers/catalog-types.js';

export interface PlannedRun {
  run: number;
  dimension: DimensionId;
  method: AnyMethod;
  request: FrameRequest;
  output: number;
}

/** One stream of frames from the decoder; `id` is its position in `EvaluationPlan.outputs`. */
export interface PlannedOutput {
  id: number;
  sampling: FrameSampling;
  maxSide: number | null;
  channels: 1 | 3;
}

export interface EvaluationPlan {
  runs: PlannedRun[];
  outputs: PlannedOutput[];
  failures: DimensionFailure[];
}

/** Throws `unknown_dimension` for ids outside VBench's 16; duplicates are dropped. */
export function checkDimensions(dimensions: readonly string[]): DimensionId[] {
  const unknown = dimensions.filter((d) => !(DIMENSION_IDS as readonly string[]).includes(d));
  if (unknown.length > 0)
    throw new EngineError('unknown_dimension', `unknown dimension(s): ${unknown.join(', ')}`);
  return [...new Set(dimensions as DimensionId[])];
}

function validRequest(r: FrameRequest): string | null {
  const s = validateSampling(r.sampling);
  if (s) return s;
  if (r.channels !== 1 && r.channels !== 3) return 'channels must be 1 or 3';
  if (r.maxSide !== null && !(Number.isInteger(r.maxSide) && r.maxSide >= 1))
    return 'maxSide must be a positive integer or null';
  return null;
}

export function planEvaluation(
  probe: VideoProbe,
  options: Pick<EvaluateOptions, 'dimensions' | 'methods' | 'prompt' | 'auxiliary'>,
  catalog: MethodCatalog,
  catalogOptions: CatalogOptions,
): EvaluationPlan {
  const dimensions = checkDimensions(options.dimensions);
  const failures: DimensionFailure[] = [];
  const runs: PlannedRun[] = [];
  const outputs: PlannedOutput[] = [];
  const fail = (dimension: DimensionId, code: DimensionFailure['code'], detail: string): void => {
    failures.push({ dimension, code, detail });
  };

  for (const dimension of dimensions) {
    const info = catalog.getDimension(dimension, catalogOptions);
    const requested: MethodId | undefined = options.methods?.[dimension];
    const methodId = requested ?? info?.defaultMethod ?? null;
    if (!info || methodId === null) {
      // A model-backed method this build implements, waiting only for its models: say which to fetch.
      const waiting = info?.methods.find(
        (m) => m.requires.models.length > 0 && catalog.getMethod(dimension, m.id),
      );
      if (waiting)
        fail(
          dimension,
          'model_unavailable',
          `${dimension} (${waiting.id}): ${waiting.unavailableReason ?? 'models not installed'}`,
        );
      else fail(dimension, 'method_unavailable', `no method of ${dimension} is available in this build`);
      continue;
    }
    const methodInfo = info.methods.find((m) => m.id === methodId);
    if (!methodInfo) {
      fail(
        dimension,
        'method_unavailable',
        `${dimension} has no method "${methodId}" (methods: ${info.methods.map((m) => m.id).join(', ')})`,
      );
      continue;
    }
    if (!methodInfo.available) {
      const code = methodInfo.requires.models.length > 0 ? 'model_unavailable' : 'method_unavailable';
      fail(
        dimension,
        code,
        methodInfo.unavailableReason ?? `method ${methodId} of ${dimension} is not available`,
      );
      continue;
    }
    if (methodInfo.requires.prompt && !options.prompt?.trim()) {
      fail(dimension, 'missing_prompt', `${dimension} (${methodId}) needs the clip's text prompt`);
      continue;
    }
    const missingAux = methodInfo.requires.auxiliary.filter((k) => !options.auxiliary?.[k]?.trim());
    if (missingAux.length > 0) {
      fail(
        dimension,
        'missing_auxiliary',
        `${dimension} (${methodId}) needs auxiliary info: ${missingAux.join(', ')}`,
      );
      continue;
    }
    const method = catalog.getMethod(dimension, methodId);
    if (!method) {
      fail(
        dimension,
        'method_unavailable',
        `method ${methodId} of ${dimension} is not implemented in this build`,
      );
      continue;
    }
    let request: FrameRequest;
    try {
      request = method.frames(probe);
    } catch (err) {
      if (err instanceof EngineError) fail(dimension, err.code, err.message);
      else
        fail(
          dimension,
          'decode_failed',
          `${dimension} could not plan its frames: ${err instanceof Error ? err.message : String(err)}`,
        );
      continue;
    }
    const invalid = validRequest(request);
    if (invalid) {
      fail(dimension, 'decode_failed', `${dimension} asked for invalid frames: ${invalid}`);
      continue;
    }
    const key = samplingKey(request.sampling);
    let output = outputs.find(
      (o) =>
        samplingKey(o.sampling) === key && o.maxSide === request.maxSide && o.channels === request.channels,
    );
    if (!output) {
      output = {
        id: outputs.length,
        sampling: request.sampling,
        maxSide: request.maxSide,
        channels: request.channels,
      };
      outputs.push(output);
    }
    runs.push({ run: runs.length, dimension, method, request, output: output.id });
  }
  return { runs, outputs, failures };
}
