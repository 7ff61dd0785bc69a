/**
 * A local HTTP server that serves fixture model files the way the Hugging Face hub (or a mirror)
 * does: `GET /<repo>/resolve/<revision>/<path>`, `Range: bytes=N-` → 206, `X-Repo-Commit`.
 * Hooks let a test break transfers on purpose:
 * - `truncate(path, n)`: the next response for `path` sends `n` body bytes, then drops the socket;
 * - `corrupt(path)`: serve bytes that differ from the registered ones (same length);
 * - `rangeSupport = false`: ignore Range headers (always 200 with the whole file);
 * - `delayMs`: pause between 16 KiB chunks (a slow transfer);
 * - `status(path, code)`: answer `code` with no body.
 * Every request is recorded in `requests`.
 *
 * @example
 *   const server = await startModelServer();
 *   server.serve(hubPath('vesta-test/tiny', 'main', 'onnx/model.onnx'), bytes, { commit: 'ab…' });
 *   // store hubUrl = server.url
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ServedRequest {
  method: string;
  path: string;
  range: string | null;
}

export interface ModelServer {
  url: string;
  requests: ServedRequest[];
  rangeSupport: boolean;
  delayMs: number;
  serve(path: string, bytes: Uint8Array, options?: { commit?: string }): void;
  truncate(path: string, bytes: number): void;
  corrupt(path: string, on?: boolean): void;
  status(path: string, code: number | null): void;
  /** GET requests for `path` so far. */
  gets(path: string): ServedRequest[];
  close(): Promise<void>;
}

/** The hub's path for a file: `/<repo>/resolve/<revision>/<path>`. */
export function hubPath(repo: string, revision: string, path: string): string {
  return `/${repo}/resolve/${revision}/${path}`;
}

const CHUNK = 16 * 1024;

export async function startModelServer(): Promise<ModelServer> {
  const files = new Map<string, { bytes: Uint8Array; commit?: string }>();
  const truncations = new Map<string, number>();
  const corrupted = new Set<string>();
  const statuses = new Map<string, number>();
  const requests: ServedRequest[] = [];

  const state = { rangeSupport: true, delayMs: 0 };

  async function send(res: ServerResponse, body: Uint8Array, cutAt: number | null): Promise<void> {
    const limit = cutAt ?? body.length;
    for (let offset = 0; offset < limit; offset += CHUNK) {
      const end = Math.min(limit, offset + CHUNK);
      const ok = res.write(body.subarray(offset, end));
      if (!ok) await new Promise((r) => res.once('drain', r));
      if (state.delayMs > 0) await new Promise((r) => setTimeout(r, state.delayMs));
      if (res.destroyed) return;
    }
    if (cutAt !== null) {
      // Drop the connection mid-body: the client sees fewer bytes than Content-Length.
      await new Promise((r) => setTimeout(r, 10));
      res.socket?.destroy();
      return;
    }
    res.end();
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const range = req.headers.range ?? null;
    requests.push({ method: req.method ?? 'GET', path, range });
    const code = statuses.get(path);
    if (code !== undefined) {
      res.writeHead(code).end();
      return;
    }
    const file = files.get(path);
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Entry not found');
      return;
    }
    let body = file.bytes;
    if (corrupted.has(path)) {
      body = Uint8Array.from(body);
      for (let i = 0; i < body.length; i += 97) body[i] = (body[i] ?? 0) ^ 0xff;
    }
    const headers: Record<string, string> = {
      'content-type': 'application/octet-stream',
      'accept-ranges': 'bytes',
    };
    if (file.commit) headers['x-repo-commit'] = file.commit;
    let start = 0;
    const m = range && state.rangeSupport ? /^bytes=(\d+)-$/.exec(range) : null;
    if (m) {
      start = Number(m[1]);
      if (start >= body.length) {
        res.writeHead(416, { ...headers, 'content-range': `bytes */${body.length}` }).end();
        return;
      }
      headers['content-range'] = `bytes ${start}-${body.length - 1}/${body.length}`;
    }
    const slice = body.subarray(start);
    headers['content-length'] = String(slice.length);
    res.writeHead(m ? 206 : 200, headers);
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    const cut = truncations.get(path);
    if (cut !== undefined) truncations.delete(path);
    await send(res, slice, cut !== undefined ? Math.min(cut, slice.length) : null);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get rangeSupport() {
      return state.rangeSupport;
    },
    set rangeSupport(v: boolean) {
      state.rangeSupport = v;
    },
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(v: number) {
      state.delayMs = v;
    },
    serve(path, bytes, options = {}) {
      files.set(path, { bytes, ...(options.commit ? { commit: options.commit } : {}) });
    },
    truncate(path, bytes) {
      truncations.set(path, bytes);
    },
    corrupt(path, on = true) {
      if (on) corrupted.add(path);
      else corrupted.delete(path);
    },
    status(path, code) {
      if (code === null) statuses.delete(path);
      else statuses.set(path, code);
    },
    gets(path) {
      return requests.filter((r) => r.path === path && r.method === 'GET');
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
