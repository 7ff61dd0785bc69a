/** The dimension methods this build implements. */
import type { DimensionId, MethodId } from '../contract.js';
import type { AnyMethod, DimensionMethod } from '../method-contract.js';
import { MODEL_METHODS } from './model/index.js';
import { aestheticQualityLite } from './aesthetic-quality.js';
import { backgroundConsistencyLite, subjectConsistencyLite } from './consistency.js';
import { dynamicDegreeLite } from './dynamic-degree.js';
import { imagingQualityLite } from './imaging-quality.js';
import { motionSmoothnessLite } from './motion-smoothness.js';
import { temporalFlickeringVbench } from './temporal-flickering.js';

export const METHODS: readonly DimensionMethod[] = [
  subjectConsistencyLite,
  backgroundConsistencyLite,
  temporalFlickeringVbench,
  motionSmoothnessLite,
  dynamicDegreeLite,
  aestheticQualityLite,
  imagingQualityLite,
];

export function getMethod(dimension: DimensionId, method: MethodId): AnyMethod | undefined {
  return [...METHODS, ...MODEL_METHODS].find((m) => m.dimension === dimension && m.id === method);
}
