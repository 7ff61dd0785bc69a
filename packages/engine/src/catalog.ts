/**
 * The default method catalog: the dimension registry and the methods this build implements.
 * The engine's main thread reads it for requirements and frame requests; each worker thread
 * imports this module (by URL) to instantiate the same methods.
 */
export { getMethod } from './dimensions/index.js';
export { listDimensions, getDimension } from './registry.js';
