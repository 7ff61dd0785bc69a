/**
 * onnxruntime-node, loaded on first use: importing the engine (server, CLI, registry) does not load
 * the native binding; only a worker that runs a model does. Node's module cache makes repeated
 * calls cheap.
 */
import type * as Ort from 'onnxruntime-node';

export type OrtModule = typeof Ort;

export function loadOrt(): Promise<OrtModule> {
  return import('onnxruntime-node');
}
