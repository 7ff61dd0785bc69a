// The Node.js upload PUT through node:http (src/node/put-http.ts) against a small local HTTP server
// that misbehaves on purpose: the bytes arrive whole with their Content-Length, progress counts
// them, and an early refusal, a stall, an abort, a broken source and an unreachable server each
// end in the same typed error as the fetch PUT gives, without the URL's credential and with every
// attempt counted. A client with a `fetch` of its own sends the PUT through it.
import { randomBytes, createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { inspect } from 'node:util';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  ApiConnectionError,
  ApiError,
  ApiTimeoutError,
  RequestAbortedError,
  UploadSourceError,
  Vesta,
} from '../src/index.js';
import { globalFetch, type FetchLike } from '../src/core/http.js';
import { putWithNodeHttp } from '../src/node/put-http.js';
import { preparePath } from '../src/node/platform.js';
import type { PutRequest } from '../src/uploads/put.js';
import { prepareInMemorySource, type PreparedUpload } from '../src/uploads/source.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'vesta-node-put-'));
const file = path.join(dir, 'clip.mp4');
const bytes = randomBytes(9 * 1024 * 1024 + 123);
writeFileSync(file, bytes);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let server: Server | undefined;
afterEach(async () => {
  if (server) {
    server.closeAllConnections();
    await new Promise<void>((r) => server!.close(() => r()));
  }
  server = undefined;
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/upload`;
}

function putRequest(url: string, upload: PreparedUpload, over: Partial<PutRequest> = {}): PutRequest {
  return {
    fetch: globalFetch,
    url,
    method: 'PUT',
    headers: { 'Content-Type': 'video/mp4', 'X-Upload-Token': 't' },
    upload,
    onBytes: () => undefined,
    signal: undefined,
    stallTimeoutMs: 5_000,
    setContentLength: true,
    ...over,
  };
}

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

describe('Node upload PUT (node:http)', () => {
  it('sends the file whole with its Content-Length and headers, counting bytes as they leave', async () => {
    const got: { headers?: IncomingMessage['headers']; body?: Buffer } = {};
    const url = await serve((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (c: Buffer) => parts.push(c));
      req.on('end', () => {
        got.headers = req.headers;
        got.body = Buffer.concat(parts);
        res.writeHead(200).end();
      });
    });
    const progress: number[] = [];
    await putWithNodeHttp(putRequest(url, await preparePath(file, {}), { onBytes: (n) => progress.push(n) }));
    expect(got.body!.length).toBe(bytes.length);
    expect(sha(got.body!)).toBe(sha(bytes));
    expect(got.headers!['content-length']).toBe(String(bytes.length));
    expect(got.headers!['content-type']).toBe('video/mp4');
    expect(got.headers!['x-upload-token']).toBe('t');
    // Not through fetch: undici would have sent its sec-fetch-mode header.
    expect(got.headers!['sec-fetch-mode']).toBeUndefined();
    expect(progress.at(-1)).toBe(bytes.length);
    expect(progress.every((n, i) => i === 0 || n > progress[i - 1]!)).toBe(true);
  });

  it('sends a Blob and a Node stream of unknown size (chunked)', async () => {
    const bodies: Array<{ length: number; te: string | undefined }> = [];
    const url = await serve((req, res) => {
      let length = 0;
      req.on('data', (c: Buffer) => (length += c.length));
      req.on('end', () => {
        bodies.push({ length, te: req.headers['transfer-encoding'] });
        res.writeHead(204).end();
      });
    });
    const blob = prepareInMemorySource(new Blob([bytes.subarray(0, 1000)]), { fileName: 'a.mp4' });
    await putWithNodeHttp(putRequest(url, blob));
    const stream = prepareInMemorySource(Readable.from([bytes.subarray(0, 10), bytes.subarray(10, 50)]), {
      fileName: 's.mp4',
    });
    await putWithNodeHttp(putRequest(url, stream));
    expect(bodies).toEqual([
      { length: 1000, te: undefined },
      { length: 50, te: 'chunked' },
    ]);
  });

  it('ends at an early refusal with the typed error, without sending the rest', async () => {
    let received = 0;
    const url = await serve((req, res) => {
      req.once('data', (c: Buffer) => {
        received += c.length;
        res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '5' });
        res.end(JSON.stringify({ code: 'upstream_unavailable', detail: 'the blob store is down' }));
      });
    });
    const err = await putWithNodeHttp(putRequest(url, await preparePath(file, {}))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 503, code: 'upstream_unavailable' });
    expect((err as ApiError).headers.get('retry-after')).toBe('5');
    expect(received).toBeLessThan(bytes.length);
  });

  it('times out when no byte moves for stallTimeoutMs', async () => {
    const url = await serve((req) => {
      req.pause(); // reads nothing, answers nothing
    });
    const started = Date.now();
    const err = await putWithNodeHttp(
      putRequest(url, await preparePath(file, {}), { stallTimeoutMs: 300 }),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiTimeoutError);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('stops at the caller’s abort', async () => {
    const url = await serve((req) => {
      req.pause();
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const err = await putWithNodeHttp(
      putRequest(url, await preparePath(file, {}), { signal: controller.signal }),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RequestAbortedError);
  });

  it('reports a source that fails mid-way as unreadable, not as a network error', async () => {
    const url = await serve((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200).end());
    });
    async function* broken(): AsyncGenerator<Buffer> {
      yield bytes.subarray(0, 100);
      await new Promise((r) => setTimeout(r, 10));
      throw new Error('disk went away');
    }
    const upload = prepareInMemorySource(Readable.from(broken()), { fileName: 'b.mp4', size: 1000 });
    const err = await putWithNodeHttp(putRequest(url, upload)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UploadSourceError);
    expect((err as Error).message).toContain('disk went away');
  });

  it('reports an unreachable server as a connection error', async () => {
    const url = await serve(() => undefined);
    server!.close();
    server = undefined;
    const err = await putWithNodeHttp(putRequest(url, await preparePath(file, {}))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiConnectionError);
  });

  it('keeps the upload URL’s credential (its query) out of errors; the upload counts every attempt', async () => {
    // A service whose upload URLs point at a store that cannot be reached.
    const dead = await serve(() => undefined);
    server!.close();
    server = undefined;
    const storeUrl = `${dead.replace('/upload', '')}/bucket/clip?X-Amz-Signature=s3cr3t&token=t0ken`;
    const api = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify(
            req.method === 'POST'
              ? {
                  videoId: 'vid_1',
                  uploadUrl: storeUrl,
                  method: 'PUT',
                  headers: { 'Content-Type': 'video/mp4' },
                  expiresAt: new Date(Date.now() + 600_000).toISOString(),
                }
              : { runId: 'score_1', videos: [] },
          ),
        );
      });
    });
    await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
    try {
      const vesta = new Vesta({
        apiKey: 'k',
        baseUrl: `http://127.0.0.1:${(api.address() as AddressInfo).port}`,
        maxRetries: 2,
        backoff: { initialDelayMs: 5, maxDelayMs: 20 },
      });
      const err = await vesta.score.upload(file, { prompt: 'p' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiConnectionError);
      expect((err as ApiConnectionError).attempts).toBe(3);
      expect((err as Error).message).toContain('after 3 attempts');
      expect((err as ApiConnectionError).url).toBe(storeUrl.split('?')[0]);
      expect(JSON.stringify({ m: (err as Error).message, u: (err as ApiConnectionError).url })).not.toMatch(
        /s3cr3t|t0ken/,
      );
    } finally {
      api.closeAllConnections();
      await new Promise<void>((r) => api.close(() => r()));
    }
  });

  it('goes through the client’s own fetch when it has one', async () => {
    const url = await serve((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200).end());
    });
    const seen: string[] = [];
    const own: FetchLike = (input, init) => {
      seen.push(`${init.method} ${input}`);
      return fetch(input, init);
    };
    await putWithNodeHttp(putRequest(url, await preparePath(file, {}), { fetch: own }));
    expect(seen).toEqual([`PUT ${url}`]);
  });
});

/** How many of this process's file descriptors point at `target` (Linux /proc). */
function openDescriptors(target: string): number {
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === target;
    } catch {
      return false;
    }
  }).length;
}

describe.runIf(process.platform === 'linux')('A failed PUT lets go of the file', () => {
  // The fetch PUT did not: a request that failed before fetch read the body (connection
  // refused) left the file's read stream open — one descriptor per failed attempt until GC.
  const paths: Array<[string, (url: string) => Partial<PutRequest>]> = [
    ['node:http', () => ({})],
    ['fetch', () => ({ fetch: (input, init) => fetch(input, init) })],
  ];
  for (const [name, over] of paths) {
    it(`${name}: unreachable server and early refusal close the source`, async () => {
      const dead = await serve(() => undefined);
      server!.close();
      server = undefined;
      for (let i = 0; i < 3; i++) {
        const err = await putWithNodeHttp(putRequest(dead, await preparePath(file, {}), over(dead))).catch(
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(ApiConnectionError);
      }
      const refusing = await serve((req, res) => {
        req.once('data', () => {
          res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '5' });
          res.end(JSON.stringify({ code: 'upstream_unavailable', detail: 'the blob store is down' }));
        });
      });
      const err = await putWithNodeHttp(
        putRequest(refusing, await preparePath(file, {}), over(refusing)),
      ).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      // Closing a stream's descriptor is asynchronous; give it a moment.
      for (let t = 0; t < 50 && openDescriptors(file) > 0; t++) await new Promise((r) => setTimeout(r, 20));
      expect(openDescriptors(file)).toBe(0);
    });
  }
});

describe('Upload errors quote nothing of the URL’s query', () => {
  const signature = '5e1f0c2a9b7d4e3f8a6c1b0d2e4f6a8c0b2d4f6e8a0c2e4f6b8d0a2c4e6f8b0d';
  const query = `X-Amz-Credential=AKIDEXAMPLE%2F20261126%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Signature=${signature}`;
  /** What an error shows anywhere: message, fields, cause chain (as a log line or a REPL would). */
  const shown = (err: unknown): string => `${String(err)}\n${inspect(err, { depth: 6 })}`;
  const throughFetch: FetchLike = (input, init) => fetch(input, init);
  const small = (): PreparedUpload =>
    prepareInMemorySource(new Blob([bytes.subarray(0, 4096)]), { fileName: 'clip.mp4' });

  /**
   * A store that refuses the PUT quoting what it was given, as S3's SignatureDoesNotMatch does:
   * XML with the signature straddling the 200 characters kept of a non-JSON answer, then the
   * canonical query; or JSON whose detail quotes the signature.
   */
  async function refusingStore(kind: 'xml' | 'json'): Promise<string> {
    const url = await serve((req, res) => {
      req.resume();
      req.on('end', () => {
        const given = new URL(req.url!, 'http://store').searchParams.get('X-Amz-Signature');
        const canonical = req.url!.slice(req.url!.indexOf('?') + 1);
        const head =
          '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SignatureDoesNotMatch</Code><Message>no</Message>';
        const body =
          kind === 'xml'
            ? `${head.padEnd(180)}<SignatureProvided>${given}</SignatureProvided><CanonicalQueryString>${canonical}</CanonicalQueryString></Error>`
            : JSON.stringify({
                code: 'forbidden',
                detail: `signature ${given} does not match (query ${canonical})`,
              });
        res.writeHead(403, { 'content-type': kind === 'xml' ? 'application/xml' : 'application/json' });
        res.end(body);
      });
    });
    return `${url.replace('/upload', '/bucket/clip.mp4')}?${query}`;
  }

  for (const [name, fetchImpl] of [
    ['node:http', globalFetch],
    ['fetch', throughFetch],
  ] as const) {
    it(`a store quoting the signature in its 403 has it replaced in the detail (${name})`, async () => {
      const url = await refusingStore('xml');
      const err = await putWithNodeHttp(putRequest(url, small(), { fetch: fetchImpl })).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ApiError);
      const apiErr = err as ApiError;
      expect([apiErr.status, apiErr.url]).toEqual([403, url.split('?')[0]]);
      expect(apiErr.detail).toContain('SignatureDoesNotMatch');
      // The excerpt reaches the value, replaced whole before it was cut.
      expect(apiErr.detail).toContain('<SignatureProvided>…');
      expect(shown(err)).not.toContain(signature.slice(0, 8));
      expect(shown(err)).not.toContain('AKIDEXAMPLE');

      const json = await refusingStore('json');
      const jsonErr = (await putWithNodeHttp(putRequest(json, small(), { fetch: fetchImpl })).catch(
        (e: unknown) => e,
      )) as ApiError;
      expect(jsonErr.code).toBe('forbidden');
      expect(jsonErr.detail).toBe('signature … does not match (query X-Amz-Credential=…&X-Amz-Signature=…)');
      expect(shown(jsonErr)).not.toContain(signature.slice(0, 8));
    });
  }

  it('a URL that cannot be sent is a connection error that does not quote it', async () => {
    // fetch's own error quotes the URL whole ("Failed to parse URL from …"), its cause keeps it.
    const url = `http://127.0.0.1:99999/bucket/clip.mp4?${query}`;
    for (const fetchImpl of [globalFetch, throughFetch]) {
      const err = await putWithNodeHttp(putRequest(url, small(), { fetch: fetchImpl })).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ApiConnectionError);
      expect((err as ApiConnectionError).url).toBe('http://127.0.0.1:99999/bucket/clip.mp4');
      expect((err as Error).message).toContain('Invalid URL');
      expect(shown(err)).not.toContain(signature.slice(0, 8));
      expect(shown(err)).not.toContain('AKIDEXAMPLE');
    }
  });
});
