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

/** Every method by dimension and method id (the first listed wins, as a search in order would). */
const BY_KEY = new Map<string, AnyMethod>();
for (const m of [...METHODS, ...MODEL_METHODS]) {
  const key = `${m.dimension}/${m.id}`;
  if (!BY_KEY.has(key)) BY_KEY.set(key, m);
}

export function getMethod(dimension: DimensionId, method: MethodId): AnyMethod | undefined {
  return BY_KEY.get(`${dimension}/${method}`);
}
