/** The dimension methods this build implements. */
import type { DimensionId, MethodId } from '../contract.js';
import type { DimensionMethod } from '../method-contract.js';
import { temporalFlickeringVbench } from './temporal-flickering.js';

export const METHODS: readonly DimensionMethod[] = [temporalFlickeringVbench];

export function getMethod(dimension: DimensionId, method: MethodId): DimensionMethod | undefined {
  return METHODS.find((m) => m.dimension === dimension && m.id === method);
}
