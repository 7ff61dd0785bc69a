/** Sends a generated clip through a task's upload flow: upload-url (with the lease) → PUT. */
import { UploadSourceError } from '../core/errors.js';
import type { HttpClient } from '../core/http.js';
import type { Platform } from '../core/platform.js';
import { runUpload, type UploadOptions } from '../uploads/flow.js';
import { isBlob, type UploadInput } from '../uploads/source.js';
import type { UploadTicket } from '../types.js';
import type { ClipOutput, ClipSource, RunnerApi, RunnerTask } from './types.js';

export interface ClipUploadDeps {
  http: HttpClient;
  platform: Platform;
  maxRetries: number;
  timeoutMs: number;
  api: RunnerApi;
}

/** Media type from a clip's first bytes (MP4/MOV, WebM/Matroska, AVI, GIF), else MP4. */
export function sniffContentType(head: Uint8Array): string {
  const ascii = (from: number, to: number): string => String.fromCharCode(...head.subarray(from, to));
  if (head.length >= 12 && ascii(4, 8) === 'ftyp')
    return ascii(8, 10) === 'qt' ? 'video/quicktime' : 'video/mp4';
  if (head.length >= 4 && head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3)
    return 'video/webm';
  if (head.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 11) === 'AVI') return 'video/x-msvideo';
  if (head.length >= 4 && ascii(0, 4) === 'GIF8') return 'image/gif';
  return 'video/mp4';
}

const extensionOf: Record<string, string> = {
  'video/mp4': 'mp4',
  'video/quicktime': 'mov',
  'video/webm': 'webm',
  'video/x-msvideo': 'avi',
  'image/gif': 'gif',
};

export function isClipWrapper(value: ClipOutput): value is Exclude<ClipOutput, ClipSource> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !(value instanceof Uint8Array) &&
    !(value instanceof ArrayBuffer) &&
    !isBlob(value) &&
    'clip' in value
  );
}

/** Turns what a generator returned into an upload source with a name and a media type. */
export function normaliseClip(
  output: ClipOutput,
  task: RunnerTask,
): { input: UploadInput; fileName: string | undefined; contentType: string | undefined } {
  const wrapped = isClipWrapper(output) ? output : { clip: output };
  const clip = wrapped.clip as unknown;
  if (clip === undefined || clip === null)
    throw new UploadSourceError(
      'The generator returned no clip (expected a path, bytes, a Blob or a stream).',
    );
  if (typeof clip === 'string') {
    if (clip === '') throw new UploadSourceError('The generator returned an empty file path.');
    return { input: clip, fileName: wrapped.fileName, contentType: wrapped.contentType };
  }
  if (clip instanceof Uint8Array || clip instanceof ArrayBuffer) {
    const bytes = clip instanceof Uint8Array ? clip : new Uint8Array(clip);
    if (bytes.byteLength === 0)
      throw new UploadSourceError('The generator returned an empty clip (0 bytes).');
    const contentType = wrapped.contentType ?? sniffContentType(bytes.subarray(0, 16));
    const blob = new Blob([bytes as Uint8Array<ArrayBuffer>], { type: contentType });
    return {
      input: blob,
      fileName: wrapped.fileName ?? `${task.id}.${extensionOf[contentType] ?? 'mp4'}`,
      contentType,
    };
  }
  if (isBlob(clip)) {
    const contentType = wrapped.contentType ?? (clip.type || 'video/mp4');
    const named = typeof File !== 'undefined' && clip instanceof File ? clip.name : undefined;
    return {
      input: clip,
      fileName: wrapped.fileName ?? named ?? `${task.id}.${extensionOf[contentType] ?? 'mp4'}`,
      contentType,
    };
  }
  const contentType = wrapped.contentType ?? 'video/mp4';
  return {
    input: clip as UploadInput,
    fileName: wrapped.fileName ?? `${task.id}.${extensionOf[contentType] ?? 'mp4'}`,
    contentType,
  };
}

/** Uploads the clip of `task` under `leaseId`; resolves with the new video's id and byte count. */
export async function uploadTaskClip(
  deps: ClipUploadDeps,
  task: RunnerTask,
  leaseId: string,
  output: ClipOutput,
  signal: AbortSignal,
): Promise<{ videoId: string; bytes: number | undefined }> {
  const clip = normaliseClip(output, task);
  let bytes: number | undefined;
  const options: UploadOptions = { signal, onProgress: (e) => e.phase === 'upload' && (bytes = e.loaded) };
  if (clip.fileName !== undefined) options.fileName = clip.fileName;
  if (clip.contentType !== undefined) options.contentType = clip.contentType;
  const result = await runUpload(
    {
      http: deps.http,
      platform: deps.platform,
      maxRetries: deps.maxRetries,
      timeoutMs: deps.timeoutMs,
      getRunId: () => Promise.resolve(task.id),
      requestUploadUrl: async (_taskId, body, s) =>
        (await deps.api.createUploadUrl(
          task.id,
          {
            leaseId,
            fileName: body.fileName,
            contentType: body.contentType,
            ...(body.sizeBytes === undefined ? {} : { sizeBytes: body.sizeBytes }),
          },
          { signal: s },
        )) as UploadTicket,
      // The task's `complete` call confirms the upload (with the lease); nothing to do here.
      confirm: () => Promise.resolve(undefined),
      listVideos: () => Promise.reject(new Error('a task upload is never waited on')),
    },
    clip.input,
    options,
  );
  return { videoId: result.videoId, bytes };
}
