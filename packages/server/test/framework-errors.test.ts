/**
 * Responses the framework and Node's HTTP parser would make by themselves, on a real listening
 * server: every one is a catalogue body `{ code, detail, requestId }` with the catalogue's status;
 * JSON nesting is bounded before parsing; an upload token has one spelling, and an over-long one is
 * a tampered one (401).
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../src/errors.js';
import { loadOrCreateSigningSecret, UploadTokenSigner } from '../src/services/upload-token.js';
import { startCoreServer } from './helpers/core-app.js';
import type { CoreTestServer } from './helpers/core-app.js';

let server: CoreTestServer;
let key: string;

beforeAll(async () => {
  server = await startCoreServer({ listen: true });
  key = await server.key();
});

afterAll(async () => {
  await server?.stop();
});

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends raw bytes on one connection and parses every response that comes back until it closes. */
function raw(bytes: string | Buffer): Promise<RawResponse[]> {
  const { port } = new URL(server.base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => resolve(parseResponses(Buffer.concat(chunks).toString('latin1'))));
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    socket.write(bytes);
  });
}

function parseResponses(text: string): RawResponse[] {
  const out: RawResponse[] = [];
  let rest = text;
  while (rest.startsWith('HTTP/1.1 ')) {
    const end = rest.indexOf('\r\n\r\n');
    const head = rest.slice(0, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of head.slice(1)) {
      const i = line.indexOf(':');
      headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    const body = rest.slice(end + 4, end + 4 + length);
    out.push({ status: Number(head[0]!.split(' ')[1]), headers, body });
    rest = rest.slice(end + 4 + length);
  }
  return out;
}

function expectCatalogue(
  res: { status: number; headers: Record<string, unknown>; body: string },
  code: keyof typeof ERROR_CATALOGUE,
) {
  const body = JSON.parse(res.body) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(['code', 'detail', 'requestId']);
  expect(body.code).toBe(code);
  expect(res.status).toBe(ERROR_CATALOGUE[code].status);
  expect(typeof body.requestId).toBe('string');
  expect(res.headers['x-request-id']).toBe(body.requestId);
  expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
  return body as { code: string; detail: string; requestId: string };
}

async function uploadUrl(): Promise<string> {
  const runId = (
    (await (await fetch(`${server.base}/api/v1/score`, { headers: { 'x-api-key': key } })).json()) as {
      runId: string;
    }
  ).runId;
  const res = await fetch(`${server.base}/api/v1/score/${runId}/videos/upload-url`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ fileName: 'a.mp4', contentType: 'video/mp4', prompt: 'a cat' }),
  });
  return ((await res.json()) as { uploadUrl: string }).uploadUrl;
}

describe("Node's HTTP parser errors", () => {
  it('headers over the limit: 431 headers_too_large', async () => {
    const [res] = await raw(`GET /api/v1/score HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expectCatalogue(res!, 'headers_too_large');
  });

  it('a malformed request line: 400 validation_failed', async () => {
    for (const line of [
      'GARBAGE\r\n\r\n',
      'GET /api/v1/score HTTP/9.9\r\nHost: x\r\n\r\n',
      'GET  HTTP/1.1\r\n\r\n',
    ]) {
      const responses = await raw(line);
      expect(responses.length, line).toBe(1);
      expectCatalogue(responses[0]!, 'validation_failed');
    }
  });

  it('bytes beyond Content-Length after a stored upload: the upload is answered, then 400', async () => {
    const url = new URL(await uploadUrl());
    const request =
      `PUT ${url.pathname}${url.search} HTTP/1.1\r\nHost: x\r\nContent-Type: video/mp4\r\n` +
      `Content-Length: 10\r\n\r\n${'v'.repeat(10)}` +
      'surplus bytes that are no request\r\n\r\n';
    const responses = await raw(request);
    expect(responses.map((r) => r.status)).toEqual([200, 400]);
    expect(JSON.parse(responses[0]!.body)).toMatchObject({ state: 'uploaded', sizeBytes: 10 });
    expectCatalogue(responses[1]!, 'validation_failed');
  });
});

describe('router errors', () => {
  it('a path parameter over the router limit: 414 uri_too_long, the URL not echoed', async () => {
    const id = 'x'.repeat(5000);
    const res = await fetch(`${server.base}/api/v1/bench/${id}`, { headers: { 'x-api-key': key } });
    const body = expectCatalogue(
      { status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() },
      'uri_too_long',
    );
    expect(body.detail).not.toContain('xxxxxxxxxx');
  });

  it('a malformed percent-encoding: 400 validation_failed', async () => {
    const [res] = await raw(
      `GET /api/v1/bench/%zz HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nConnection: close\r\n\r\n`,
    );
    expectCatalogue(res!, 'validation_failed');
  });

  it('OPTIONS without preflight headers: 204, not a text/plain 400', async () => {
    const res = await fetch(`${server.base}/api/v1/score`, { method: 'OPTIONS' });
    expect(res.status).toBe(204);
  });
});

describe('JSON nesting', () => {
  it('a body nested deeper than the limit is 400 validation_failed naming the limit, on every JSON route', async () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    for (const [url, body] of [
      ['/api/v1/runners', `{"name":"r","models":${deep}}`],
      ['/api/v1/bench', `{"name":"b","models":["m"],"dimensions":${deep}}`],
      ['/api/v1/score/x/videos/upload-url', `{"fileName":${deep}}`],
    ] as const) {
      const res = await fetch(`${server.base}${url}`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body,
      });
      const err = expectCatalogue(
        { status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() },
        'validation_failed',
      );
      expect(err.detail).toContain('32');
      expect(err.detail).toContain('VESTA_JSON_MAX_DEPTH');
    }
  });

  it('brackets inside strings do not count', async () => {
    const res = await fetch(`${server.base}/api/v1/runners`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'brackets', models: ['['.repeat(100)] }),
    });
    expect(res.status).not.toBe(500);
    expect(((await res.json()) as { detail?: string }).detail ?? '').not.toContain('nested');
  });
});

describe('upload tokens', () => {
  it('a 3,000-character token is a tampered one: 401 unauthorized', async () => {
    const url = new URL(await uploadUrl());
    url.searchParams.set('token', 'a'.repeat(3000));
    const res = await fetch(url, {
      method: 'PUT',
      headers: { 'content-type': 'video/mp4' },
      body: new Uint8Array(10),
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { code: string }).code).toBe('unauthorized');
  });

  it('flipping the unused low bits of the last character is refused: one spelling per token', async () => {
    const signer = new UploadTokenSigner(loadOrCreateSigningSecret(server.dataDir));
    const token = signer.sign({ videoId: 'vid_1', contentType: 'video/mp4', maxBytes: 10, expiresAt: 1e13 });
    expect(signer.verify(token)).not.toBeNull();
    // A SHA-256 MAC is 32 bytes = 43 base64url characters; the last one carries 2 unused low bits.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(token.at(-1)!);
    const twins = [1, 2, 3].map((bits) => token.slice(0, -1) + alphabet[(last & ~3) | ((last & 3) ^ bits)]);
    for (const twin of twins) {
      expect(
        Buffer.from(twin.split('.')[1]!, 'base64url').equals(Buffer.from(token.split('.')[1]!, 'base64url')),
      ).toBe(true);
      expect(signer.verify(twin)).toBeNull();
    }
    // Through the API too.
    const url = new URL(await uploadUrl());
    const real = url.searchParams.get('token')!;
    const i = alphabet.indexOf(real.at(-1)!);
    url.searchParams.set('token', real.slice(0, -1) + alphabet[i ^ 1]);
    const res = await fetch(url, {
      method: 'PUT',
      headers: { 'content-type': 'video/mp4' },
      body: new Uint8Array(10),
    });
    expect(res.status).toBe(401);
    url.searchParams.set('token', real);
    expect(
      (
        await fetch(url, {
          method: 'PUT',
          headers: { 'content-type': 'video/mp4' },
          body: new Uint8Array(10),
        })
      ).status,
    ).toBe(200);
  });
});
