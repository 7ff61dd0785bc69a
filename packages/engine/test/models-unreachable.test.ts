// The model store's failure memory across processes (`<cacheDir>/unreachable.json`): a source
// that could not be reached is skipped by every store on the same cache — a fresh FsModelStore
// instance stands for the next process, sharing nothing with the first but the cache folder —
// until the memory expires, a transfer from it succeeds, or an explicit pull tries it again.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsModelStore, ModelStoreError, UNREACHABLE_FILE_NAME } from '../src/models/index.js';
import type { ModelStoreOptions } from '../src/models/index.js';
import { startModelServer, type ModelServer } from './helpers/model-server.js';
import { fixtureModels, serveAll } from './helpers/fixture-manifest.js';

const fx = fixtureModels();
let server: ModelServer;
let root: string;
/** An address nothing listens on: connections are refused. */
let closed: string;

async function closedUrl(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((r) => probe.close(() => r()));
  return `http://127.0.0.1:${port}`;
}

function store(cacheDir: string, overrides: Partial<ModelStoreOptions> = {}): FsModelStore {
  return new FsModelStore({
    cacheDir,
    manifest: fx.manifest,
    hubUrl: closed,
    githubRawUrl: `${closed}/raw`,
    retries: 2,
    retryDelayMs: 200,
    lockPollMs: 20,
    ...overrides,
  });
}

async function timedFailure(p: Promise<unknown>): Promise<{ err: ModelStoreError; ms: number }> {
  const started = performance.now();
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ModelStoreError);
  return { err: err as ModelStoreError, ms: performance.now() - started };
}

const remembered = (cacheDir: string): Record<string, { until: number; error: string }> =>
  (
    JSON.parse(readFileSync(join(cacheDir, UNREACHABLE_FILE_NAME), 'utf8')) as {
      sources: Record<string, { until: number; error: string }>;
    }
  ).sources;

beforeAll(async () => {
  server = await startModelServer();
  serveAll(server, fx.files);
  root = mkdtempSync(join(tmpdir(), 'vesta-unreachable-'));
  closed = await closedUrl();
});
afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

describe('failure memory of unreachable model sources', () => {
  it('the next process skips a host that was unreachable, at once, and reads its models as unavailable', async () => {
    const cacheDir = join(root, 'a');
    const first = store(cacheDir);
    expect(first.isAvailableSync('tiny-clip')).toBe(true);
    const a = await timedFailure(first.ensure('tiny-clip'));
    expect(a.err.reason).toBe('download_failed');
    // Two retries, 200 ms then 400 ms apart: the first process waited for the host.
    expect(a.ms).toBeGreaterThanOrEqual(550);
    expect(Object.keys(remembered(cacheDir))).toEqual([closed]);
    expect(remembered(cacheDir)[closed]!.error).toMatch(/ECONNREFUSED/);

    const next = store(cacheDir);
    expect(next.isAvailableSync('tiny-clip')).toBe(false);
    const b = await timedFailure(next.ensure('tiny-clip'));
    expect(b.err.reason).toBe('download_failed');
    expect(b.err.message).toMatch(/unreachable moments ago/);
    expect(b.ms).toBeLessThan(150);
  });

  it('does not retry a host name that does not resolve (an offline first run waits once)', async () => {
    const cacheDir = join(root, 'dns');
    const noHost = 'http://vesta-no-such-host.invalid';
    const s = store(cacheDir, { hubUrl: noHost, githubRawUrl: `${noHost}/raw`, retryDelayMs: 2_000 });
    const a = await timedFailure(s.ensure('tiny-clip'));
    expect(a.err.reason).toBe('download_failed');
    // Two retries 2 s then 4 s apart would take 6 s; a name that does not resolve is not retried.
    expect(a.ms).toBeLessThan(1_500);
    expect(remembered(cacheDir)[noHost]!.error).toMatch(/ENOTFOUND/);
  });

  it('expires after its TTL, and 0 turns it off', async () => {
    const cacheDir = join(root, 'b');
    await timedFailure(store(cacheDir, { unreachableTtlMs: 300, retries: 0 }).ensure('tiny-dino'));
    expect(store(cacheDir).isAvailableSync('tiny-dino')).toBe(false);
    await new Promise((r) => setTimeout(r, 350));
    expect(store(cacheDir).isAvailableSync('tiny-dino')).toBe(true);

    const off = join(root, 'c');
    await timedFailure(store(off, { unreachableTtlMs: 0, retries: 0 }).ensure('tiny-dino'));
    expect(store(off, { unreachableTtlMs: 0 }).isAvailableSync('tiny-dino')).toBe(true);
  });

  it('a 404 is not unreachability: nothing is remembered', async () => {
    const cacheDir = join(root, 'd');
    const manifest = [
      {
        ...fx.manifest.find((m) => m.id === 'tiny-dino')!,
        id: 'missing-dino',
        revision: 'ffffffffffffffffffffffffffffffffffffffff',
      },
    ];
    const err = await timedFailure(
      store(cacheDir, { manifest, hubUrl: server.url, retries: 0 }).ensure('missing-dino'),
    );
    expect(err.err.reason).toBe('not_found');
    expect(() => readFileSync(join(cacheDir, UNREACHABLE_FILE_NAME))).toThrow();
  });

  it('an explicit pull tries a remembered host again, and a success forgets it', async () => {
    const cacheDir = join(root, 'e');
    const live = { hubUrl: server.url, githubRawUrl: `${server.url}/raw` };
    // The local server was "down" a moment ago, as another process found.
    mkdirSync(cacheDir, { recursive: true });
    writeFileSync(
      join(cacheDir, UNREACHABLE_FILE_NAME),
      JSON.stringify({
        version: 1,
        sources: { [server.url]: { until: Date.now() + 60_000, error: 'connect ECONNREFUSED' } },
      }),
    );
    const gets = () => server.requests.filter((r) => r.path.includes('vesta-test/tiny-clip')).length;
    const before = gets();
    const skipped = await timedFailure(store(cacheDir, live).ensure('tiny-clip'));
    expect(skipped.err.message).toMatch(/unreachable moments ago/);
    expect(gets()).toBe(before);

    const pulled = await store(cacheDir, live).ensure('tiny-clip', { retryUnreachable: true });
    expect(pulled.fetched).toBe(true);
    expect(gets()).toBeGreaterThan(before);
    expect(remembered(cacheDir)[server.url]).toBeUndefined();
    expect(store(cacheDir, live).isAvailableSync('tiny-clip')).toBe(true);
  });
});
