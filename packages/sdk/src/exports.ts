/** Everything both entry points export besides the `Vesta` class. */
export * from './core/errors.js';
export type { RequestOptions, FetchLike } from './core/http.js';
export type { Page, PageParams } from './core/pagination.js';
export type { BackoffPolicy } from './core/backoff.js';
export type { UploadOptions, UploadResult, UploadProgressEvent } from './uploads/flow.js';
export type { UploadInput, UploadFileOptions, NodeReadableLike } from './uploads/source.js';
export type { VestaOptions } from './client.js';
export { DEFAULT_BASE_URL, DEFAULT_API_KEY_ENV } from './client.js';
export type * from './types.js';
export * from './runner/index.js';
export type * from './resources/runners.js';
export type { DimensionPrompts } from './resources/discovery.js';
export type * from './resources/accounts.js';
export type { VideoContent, VideoContentOptions } from './resources/videos.js';
