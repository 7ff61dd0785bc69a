/** The DEMO generator: procedural clips for trying Bench runs without a real model (not a model). */
export { generateDemoClip, DemoClipError, DEMO_MODEL_ID } from './generate.js';
export type { DemoClip, DemoClipOptions, DemoClipErrorCode } from './generate.js';
export { demoScene, drawDemoFrame, promptWords, NAMED_COLOURS } from './scene.js';
export type { DemoScene, DemoShape, Rgb } from './scene.js';
