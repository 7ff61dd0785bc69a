/**
 * Roles and several processes on one database (issue 12, item 4): on PostgreSQL two `api`
 * processes and one `worker` share one schema — each with its own pool and its own LISTEN
 * connection, as separate machines would have (the OS-process version is cluster-e2e.test.ts).
 * Runner long-polls wake across API processes, a revoked key stops working on every API process
 * at once (NOTIFY, not the cache's TTL), Idempotency-Key and runner leases hold across processes,
 * an api process runs no jobs and a worker serves no API, each role shuts down gracefully. On
 * SQLite, roles api and worker are refused at start.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { createEngine } from '@vesta/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { revokeApiKey } from '../src/admin.js';
import { AUTH_CACHE_TTL_MS } from '../src/services/api-key.service.js';
import { startRole } from '../src/roles/all.js';
import type { RunningServer } from '../src/roles/all.js';
import { callApi, clip, freePort, waitFor } from './helpers/core-app.js';
import type { Json } from './helpers/core-app.js';
import { TEST_DIALECT, dropTestDatabase, testDatabaseUrl } from './helpers/test-database.js';

interface Node extends RunningServer {
  base: string;
  logs: string[];
}

const dirs: string[] = [];
const tmp = (): string => {
  const d = mkdtempSync(path.join(os.tmpdir(), 'vesta-cluster-'));
  dirs.push(d);
  return d;
};

async function startNode(role: string, env: Record<string, string>): Promise<Node> {
  const port = await freePort();
  const config = loadConfig({
    VESTA_OFFLINE: '1',
    PORT: String(port),
    HOST: '127.0.0.1',
    VESTA_LOG_LEVEL: 'info',
    VESTA_PUBLIC_URL: `http://127.0.0.1:${port}`,
    VESTA_ENGINE_THREADS: '1',
    VESTA_SHUTDOWN_GRACE_SECONDS: '5',
    VESTA_DATABASE_POOL_SIZE: '4',
    VESTA_ROLE: role,
    ...env,
  });
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(chunk.toString('utf8'));
      done();
    },
  });
  const server = await startRole(config, { createEngine, logStream, queue: { pollMs: 50 } });
  return { ...server, base: `http://127.0.0.1:${port}`, logs };
}

if (TEST_DIALECT === 'sqlite')
  describe('roles on the embedded SQLite file', () => {
    it('refuses api and worker (one process holds the file), names the fix, and keeps all as the default', () => {
      const dataDir = tmp();
      for (const role of ['api', 'worker']) {
        let err: unknown;
        try {
          loadConfig({ VESTA_ROLE: role, VESTA_DATA_DIR: dataDir });
        } catch (e) {
          err = e;
        }
        expect(err).toBeInstanceOf(ConfigError);
        expect((err as ConfigError).message).toContain(`role ${role} needs VESTA_DATABASE_URL`);
      }
      expect(() => loadConfig({ VESTA_ROLE: 'scheduler' })).toThrow(
        /VESTA_ROLE \(--role\) must be one of all, api, worker/,
      );
      expect(loadConfig({ VESTA_DATA_DIR: dataDir }).role).toBe('all');
      expect(loadConfig({ VESTA_DATA_DIR: dataDir, VESTA_ROLE: 'ALL' }).role).toBe('all');
    });
  });

if (TEST_DIALECT === 'postgres')
  describe('two api processes and a worker on one PostgreSQL database', () => {
    const key0 = tmp();
    let url: string;
    let a: Node;
    let b: Node;
    let worker: Node | null = null;
    const shared = tmp();

    beforeAll(async () => {
      url = (await testDatabaseUrl(key0))!;
      // One data directory (the local blob store) shared by every process, as a shared volume would be.
      const env = { VESTA_DATABASE_URL: url, VESTA_DATA_DIR: shared };
      a = await startNode('api', env);
      b = await startNode('api', env);
    });

    afterAll(async () => {
      await worker?.close();
      await b?.close();
      await a?.close();
      await dropTestDatabase(key0);
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    });

    const api = (node: Node, method: string, p: string, key: string, body?: unknown, headers = {}) =>
      callApi(node.base, key, method, p, body, headers);
    const newKey = async (name: string) => (await a.deps.services.apiKeys.createKey(name)).key;

    it('an api process serves the API and enqueues, but runs no job; a worker serves only health, readiness and metrics', async () => {
      const key = await newKey('cluster-roles');
      const session = (await api(a, 'GET', '/api/v1/score', key)).json();
      const minted = (
        await api(b, 'POST', `/api/v1/score/${session.runId}/videos/upload-url`, key, {
          fileName: 'a.mp4',
          contentType: 'video/mp4',
          prompt: 'a toad doing karate',
        })
      ).json();
      // Uploaded through B (its upload URL names B) …
      const put = await fetch(minted.uploadUrl as string, {
        method: 'PUT',
        headers: { 'content-type': 'video/mp4' },
        body: readFileSync(clip('show-1__toad-karate.mp4')),
      });
      expect(put.status, await put.clone().text()).toBe(200);
      // … confirmed through A …
      const confirmed = await api(a, 'POST', `/api/v1/score/${session.runId}/videos/confirm-upload`, key, {
        videoId: minted.videoId,
      });
      expect(confirmed.status, confirmed.text).toBeLessThan(300);
      // … it waits: no api process claims the job.
      await new Promise((r) => setTimeout(r, 1500));
      const queued = (await api(a, 'GET', '/api/v1/score', key)).json();
      expect(queued.videos[0].state, JSON.stringify(queued)).toBe('queued');

      worker = await startNode('worker', { VESTA_DATABASE_URL: url, VESTA_DATA_DIR: shared });
      const scored = await waitFor(
        async () => (await api(a, 'GET', '/api/v1/score', key)).json(),
        (s) => s.videos[0].state === 'scored' || s.videos[0].state === 'failed',
        90_000,
      );
      expect(scored.videos[0].state).toBe('scored');

      // The worker's port: health, readiness (every dependency), metrics; no API, no dashboard.
      expect((await fetch(`${worker.base}/healthz`)).status).toBe(200);
      const ready = (await (await fetch(`${worker.base}/readyz`)).json()) as Json;
      expect(ready).toEqual({
        status: 'ready',
        checks: { database: 'ok', blobs: 'ok', queue: 'ok', engine: 'ok' },
      });
      expect((await fetch(`${worker.base}/metrics`)).status).toBe(200);
      expect((await api(worker, 'GET', '/api/v1/score', key)).status).toBe(404);
      expect((await fetch(`${worker.base}/dashboard/`)).status).toBe(404);
    });

    it('wakes a runner long-polling on one api process when a run is created through the other', async () => {
      const key = await newKey('cluster-wake');
      const runner = (
        await api(a, 'POST', '/api/v1/runners', key, { name: 'r', models: ['cluster-wake'] })
      ).json();
      const started = Date.now();
      const pending = api(a, 'POST', `/api/v1/runners/${runner.id}/claim`, key, { waitSeconds: 20 });
      await new Promise((r) => setTimeout(r, 500));
      const created = Date.now();
      const run = await api(b, 'POST', '/api/v1/bench', key, {
        name: 'wake across processes',
        dimensions: ['subject_consistency'],
        model_id: 'cluster-wake',
        samples_per_prompt: 1,
        prompts_per_dimension: 1,
      });
      expect(run.status, run.text).toBe(201);
      const claimed = await pending;
      expect(claimed.status, claimed.text).toBe(200);
      expect(claimed.json().task.runId).toBe(run.json().id);
      // Woken by the NOTIFY, not by the end of its 20 s wait.
      expect(Date.now() - created).toBeLessThan(3000);
      expect(Date.now() - started).toBeLessThan(5000);
    });

    it('stops a revoked key on every api process at once (NOTIFY), not only after the cache TTL', async () => {
      const viaApi = await a.deps.services.apiKeys.createKey('cluster-revoke');
      const viaAdmin = await a.deps.services.apiKeys.createKey('cluster-revoke-admin');
      // Both processes have both keys in their auth caches.
      for (const node of [a, b])
        for (const k of [viaApi.key, viaAdmin.key])
          expect((await api(node, 'GET', '/api/v1/score', k)).status).toBe(200);

      // Revoked through A's service (a dashboard revocation): B refuses it well within the TTL.
      expect(await a.deps.services.apiKeys.revokeKey(viaApi.prefix)).toBe(true);
      let t0 = Date.now();
      await waitFor(
        async () => (await api(b, 'GET', '/api/v1/score', viaApi.key)).status,
        (s) => s === 401,
        AUTH_CACHE_TTL_MS,
      );
      expect(Date.now() - t0).toBeLessThan(AUTH_CACHE_TTL_MS / 2);

      // Revoked by `vesta admin revoke-key` on the host (its own connection): both refuse it.
      expect(await revokeApiKey({ dataDir: shared, databaseUrl: url, poolSize: 1 }, viaAdmin.prefix)).toBe(
        true,
      );
      t0 = Date.now();
      for (const node of [a, b])
        await waitFor(
          async () => (await api(node, 'GET', '/api/v1/score', viaAdmin.key)).status,
          (s) => s === 401,
          AUTH_CACHE_TTL_MS,
        );
      expect(Date.now() - t0).toBeLessThan(AUTH_CACHE_TTL_MS / 2);
    });

    it('executes an Idempotency-Key once when the same POST reaches both api processes at once', async () => {
      const key = await newKey('cluster-idem');
      const session = (await api(a, 'GET', '/api/v1/score', key)).json();
      const p = `/api/v1/score/${session.runId}/videos/upload-url`;
      const body = { fileName: 'x.mp4', contentType: 'video/mp4', prompt: 'a red car at night' };
      const headers = { 'idempotency-key': 'cluster-idem-1' };
      const answers = await Promise.all([
        api(a, 'POST', p, key, body, headers),
        api(b, 'POST', p, key, body, headers),
        api(a, 'POST', p, key, body, headers),
        api(b, 'POST', p, key, body, headers),
      ]);
      for (const r of answers) expect([201, 409], r.text).toContain(r.status);
      const ok = answers.filter((r) => r.status === 201);
      expect(ok.length).toBeGreaterThanOrEqual(1);
      // Every 2xx is the same answer (one executed, the others replayed it).
      expect(new Set(ok.map((r) => r.json().videoId)).size).toBe(1);
      for (const r of answers.filter((x) => x.status === 409)) expect(r.json().code).toBe('conflict');
      // A retry on either process replays it.
      for (const node of [a, b]) {
        const again = await api(node, 'POST', p, key, body, headers);
        expect(again.status).toBe(201);
        expect(again.headers.get('idempotent-replayed')).toBe('true');
        expect(again.json().videoId).toBe(ok[0]!.json().videoId);
      }
      const after = (await api(b, 'GET', '/api/v1/score', key)).json();
      expect(after.videos, JSON.stringify(after)).toHaveLength(1);
    });

    it('gives each task to one runner when runners claim through both api processes at once', async () => {
      const key = await newKey('cluster-lease');
      const runners = await Promise.all(
        [a, b, a, b].map(
          async (node, i) =>
            (
              await api(node, 'POST', '/api/v1/runners', key, {
                name: `r${i}`,
                models: ['cluster-lease'],
                maxConcurrency: 4,
              })
            ).json().id as string,
        ),
      );
      const run = await api(a, 'POST', '/api/v1/bench', key, {
        name: 'leases across processes',
        dimensions: ['subject_consistency', 'aesthetic_quality'],
        model_id: 'cluster-lease',
        samples_per_prompt: 2,
        prompts_per_dimension: 2,
      });
      expect(run.status, run.text).toBe(201);
      const total = run.json().progress.tasks_total as number;
      const taken: string[] = [];
      for (let round = 0; round < 6; round++) {
        const claims = await Promise.all(
          runners.flatMap((id, i) =>
            [0, 1].map(() =>
              api(i % 2 ? b : a, 'POST', `/api/v1/runners/${id}/claim`, key, { waitSeconds: 0 }),
            ),
          ),
        );
        for (const c of claims) {
          expect([200, 204], c.text).toContain(c.status);
          if (c.status === 200) taken.push(c.json().task.id as string);
        }
      }
      expect(taken.length).toBeGreaterThan(0);
      expect(new Set(taken).size).toBe(taken.length);
      expect(taken.length).toBe(total);
    });

    it('shuts each role down gracefully: a long-poll answers 204 at once, the port closes, the worker stops', async () => {
      const key = await newKey('cluster-close');
      const extra = await startNode('api', { VESTA_DATABASE_URL: url, VESTA_DATA_DIR: shared });
      const runner = (
        await api(extra, 'POST', '/api/v1/runners', key, { name: 'r', models: ['cluster-close'] })
      ).json();
      const waiting = api(extra, 'POST', `/api/v1/runners/${runner.id}/claim`, key, { waitSeconds: 30 });
      await new Promise((r) => setTimeout(r, 300));
      const t0 = Date.now();
      await extra.close();
      expect((await waiting).status).toBe(204);
      expect(Date.now() - t0).toBeLessThan(5000);
      await expect(fetch(`${extra.base}/healthz`)).rejects.toThrow();

      const w = worker!;
      worker = null;
      const t1 = Date.now();
      await w.close();
      expect(Date.now() - t1).toBeLessThan(10_000);
      await expect(fetch(`${w.base}/healthz`)).rejects.toThrow();
      // The others go on.
      expect((await fetch(`${a.base}/readyz`)).status).toBe(200);
    });
  });
