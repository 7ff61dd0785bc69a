/** Browser platform: no environment variables, File/Blob uploads with progress through XHR. */
import type { Platform } from '../core/platform.js';
import { linkedController } from '../core/abort.js';
import { ApiConnectionError, ApiTimeoutError, RequestAbortedError } from '../core/errors.js';
import { putRefusal, putWithFetch, uploadUrlForErrors, type PutFn } from '../uploads/put.js';
import { isBlob, prepareInMemorySource, type PreparedUpload } from '../uploads/source.js';

/**
 * Browsers stream request bodies with fetch only over HTTP/2, and fetch reports no upload
 * progress, so Blob bodies go through XMLHttpRequest (progress events, Content-Length set by the
 * browser). Streams are first collected into a Blob.
 */
const putWithXhr: PutFn = async (req) => {
  if (typeof XMLHttpRequest === 'undefined') return putWithFetch(req);
  const source = req.upload.open();
  const blob = isBlob(source) ? source : await new Response(source as ReadableStream<Uint8Array>).blob();
  const { controller, dispose } = linkedController(req.signal);
  return new Promise<void>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    let stalled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arm = (): void => {
      if (timer !== undefined) clearTimeout(timer);
      timer = setTimeout(() => {
        stalled = true;
        xhr.abort();
      }, req.stallTimeoutMs);
    };
    const finish = (err?: Error): void => {
      if (timer !== undefined) clearTimeout(timer);
      dispose();
      if (err) reject(err);
      else resolve();
    };
    controller.signal.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.open(req.method, req.url);
    for (const [name, value] of Object.entries(req.headers)) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => {
      arm();
      req.onBytes(event.loaded);
    };
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        req.onBytes(blob.size);
        finish();
        return;
      }
      const headers = new Headers();
      const requestId = xhr.getResponseHeader('x-request-id');
      if (requestId) headers.set('x-request-id', requestId);
      finish(
        putRefusal(
          new Response(null, { status: xhr.status, headers }),
          xhr.responseText,
          req.method,
          req.url,
        ),
      );
    };
    xhr.onerror = () =>
      finish(new ApiConnectionError(uploadUrlForErrors(req.url), 1, new Error('network error')));
    xhr.onabort = () => {
      if (req.signal?.aborted) finish(new RequestAbortedError(req.signal.reason));
      else if (stalled) finish(new ApiTimeoutError(uploadUrlForErrors(req.url), req.stallTimeoutMs, 1));
      else finish(new RequestAbortedError());
    };
    arm();
    xhr.send(blob);
  });
};

export function browserPlatform(): Platform {
  return {
    readEnv: () => undefined,
    hasEnv: false,
    prepareUpload: (input, opts): Promise<PreparedUpload> =>
      Promise.resolve().then(() => prepareInMemorySource(input, opts)),
    put: putWithXhr,
    setContentLength: false,
  };
}
