/**
 * Test support shipped with the engine (`@vesta/engine/testing`): the dependency-free ONNX writer
 * and tiny fixture models with the real models' tensor names, a byte-level GIF writer and a hostile
 * GIF, for tests of every package.
 */
export * from './onnx-writer.js';
export * from './fixture-models.js';
export * from './hostile-gif.js';
export * from './gif-writer.js';
