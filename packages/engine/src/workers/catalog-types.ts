import type { DimensionId, DimensionInfo, MethodId } from '../contract.js';
import type { AnyMethod } from '../method-contract.js';

/** Registry options the engine forwards (model availability). */
export interface CatalogOptions {
  modelAvailable?: (modelId: string) => boolean;
}

/**
 * What a catalog module exports. The default is `src/catalog.ts`; tests and embedders can pass
 * their own module (loaded in the main thread as `exports`, and by URL inside each worker).
 */
export interface MethodCatalog {
  getMethod(dimension: DimensionId, method: MethodId): AnyMethod | undefined;
  getDimension(id: string, options?: CatalogOptions): DimensionInfo | undefined;
  listDimensions(options?: CatalogOptions): DimensionInfo[];
}
