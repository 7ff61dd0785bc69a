/**
 * The clip `PUT` in Node.js through `node:http` / `node:https`. fetch (undici) moves a streamed
 * request body through web streams, a promise per chunk; here each file chunk is written to the
 * socket as it is read, waiting only when the socket's buffer is full. On loopback that is about
 * twice the throughput for a third of the client's CPU (docs/benchmarks.md, `bench:distributed`
 * section `s3-upload`). Same contract as `putWithFetch`: progress as bytes leave, the stall
 * timeout, the caller's abort signal, the same typed errors.
 *
 * Used only when the client was given no `fetch` of its own (a proxy-aware fetch or a test double
 * still sees the upload), and only for http: and https: URLs.
 */
import http from 'node:http';
import type { IncomingMessage } from 'node:http';
import https from 'node:https';
import { linkedController } from '../core/abort.js';
import {
  ApiConnectionError,
  ApiTimeoutError,
  RequestAbortedError,
  UploadSourceError,
  VestaError,
} from '../core/errors.js';
import { globalFetch } from '../core/http.js';
import {
  connectionCause,
  putRefusal,
  putWithFetch,
  stallTimer,
  uploadUrlForErrors,
  type PutFn,
  type PutRequest,
} from '../uploads/put.js';
import { isBlob } from '../uploads/source.js';

export const putWithNodeHttp: PutFn = (req) => {
  const url = parseUrl(req.url);
  // A URL that does not parse is left to fetch, whose error says so (without the URL's query).
  if (
    url === undefined ||
    req.fetch !== globalFetch ||
    (url.protocol !== 'http:' && url.protocol !== 'https:')
  )
    return putWithFetch(req);
  return send(req, url);
};

function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

async function send(req: PutRequest, url: URL): Promise<void> {
  const { controller, dispose } = linkedController(req.signal);
  const stall = stallTimer(controller, req.stallTimeoutMs);
  const headers = { ...req.headers };
  if (req.setContentLength && req.upload.size !== undefined)
    headers['Content-Length'] = String(req.upload.size);
  const request = (url.protocol === 'https:' ? https : http).request(url, {
    method: req.method,
    headers,
    signal: controller.signal,
  });
  // Errors after the answer (the server closing while bytes were still going) change nothing.
  request.on('error', () => undefined);
  let answered = false;
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    request.once('response', (res) => {
      answered = true;
      resolve(res);
    });
    request.once('error', reject);
    request.once('close', () => reject(new Error('the connection closed before a response')));
  });
  let sourceError: UploadSourceError | undefined;
  const sent = { all: false };
  const body = writeBody(req, request, () => answered, stall.arm, sent).catch((err: unknown) => {
    if (err instanceof UploadSourceError) sourceError = err;
    request.destroy(err instanceof Error ? err : new Error(String(err)));
  });
  try {
    stall.arm();
    const res = await response;
    stall.arm();
    const text = await readText(res, stall.arm);
    // An early answer (a refusal before the whole body was sent) ends the upload.
    if (!sent.all) request.destroy();
    await body;
    const status = res.statusCode ?? 0;
    if (status < 200 || status > 299) throw putRefusal(asResponse(res), text, req.method, req.url);
  } catch (err) {
    if (req.signal?.aborted) throw new RequestAbortedError(req.signal.reason);
    if (stall.fired()) throw new ApiTimeoutError(uploadUrlForErrors(req.url), req.stallTimeoutMs, 1);
    if (sourceError) throw sourceError;
    if (err instanceof VestaError) throw err;
    throw new ApiConnectionError(uploadUrlForErrors(req.url), 1, connectionCause(err, req.url));
  } finally {
    stall.stop();
    dispose();
    if (!sent.all && !request.destroyed) request.destroy();
  }
}

/** Streams the source into the request; stops early once the server has answered. */
async function writeBody(
  req: PutRequest,
  request: http.ClientRequest,
  answered: () => boolean,
  moved: () => void,
  sent: { all: boolean },
): Promise<void> {
  const source = req.upload.open();
  // Node's web ReadableStream is async-iterable (the DOM typings do not say so).
  const chunks = (isBlob(source) ? source.stream() : source) as AsyncIterable<unknown>;
  let loaded = 0;
  const iterator = chunks[Symbol.asyncIterator]();
  try {
    for (;;) {
      let next: IteratorResult<unknown>;
      try {
        next = await iterator.next();
      } catch (err) {
        throw new UploadSourceError(
          `Reading the upload source failed: ${err instanceof Error ? err.message : String(err)}`,
          err,
        );
      }
      if (next.done) {
        sent.all = !request.destroyed;
        break;
      }
      if (answered() || request.destroyed) break;
      const chunk = toBytes(next.value);
      const room = request.write(chunk);
      loaded += chunk.byteLength;
      moved();
      req.onBytes(loaded);
      if (!room) await drained(request);
    }
  } finally {
    if (sent.all) request.end();
    else await iterator.return?.();
  }
}

/** Resolves when the request can take more bytes, or is gone. */
function drained(request: http.ClientRequest): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      request.off('drain', done);
      request.off('close', done);
      resolve();
    };
    request.on('drain', done);
    request.on('close', done);
  });
}

function toBytes(value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value;
  if (typeof value === 'string') return Buffer.from(value);
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  throw new UploadSourceError('Stream chunks must be bytes (Uint8Array/Buffer) or strings.');
}

async function readText(res: IncomingMessage, moved: () => void): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of res as AsyncIterable<Buffer>) {
    moved();
    parts.push(part);
  }
  return Buffer.concat(parts).toString('utf8');
}

/** The answer as a fetch Response (status and headers), for the shared error mapping. */
function asResponse(res: IncomingMessage): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return new Response(null, { status: res.statusCode, statusText: res.statusMessage, headers });
}
