/** Configuration: parsed once, defaults documented, every problem reported together; bad config stops the start. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { runMain } from '../src/main.js';

describe('loadConfig', () => {
  it('has defaults for everything', () => {
    const c = loadConfig({}, '/srv/app');
    expect(c).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      dataDir: path.resolve('/srv/app', '.vesta'),
      // Unset: links are minted under the origin each request came to (http/public-base.ts).
      publicUrl: null,
      allowedHosts: [],
      uploadUrlTtlSeconds: 900,
      corsOrigins: ['*'],
      logLevel: 'info',
      jobConcurrency: 1,
      jobLeaseSeconds: 30,
    });
    expect(c.uploadMaxBytes).toBe(1024 ** 3);
  });

  it('reads the environment', () => {
    const c = loadConfig(
      {
        PORT: '9090',
        VESTA_DATA_DIR: 'data',
        VESTA_PUBLIC_URL: 'https://vesta.example.com/',
        VESTA_ALLOWED_HOSTS: 'Vesta.LAN, 192.168.1.20,[fd00::5]',
        VESTA_CORS_ORIGINS: 'https://a.example.com, https://b.example.com',
        VESTA_LOG_LEVEL: 'WARN',
        VESTA_ENGINE_THREADS: '3',
        VESTA_UPLOAD_MAX_BYTES: '2048',
      },
      '/srv',
    );
    expect(c).toMatchObject({
      port: 9090,
      dataDir: '/srv/data',
      publicUrl: 'https://vesta.example.com',
      allowedHosts: ['vesta.lan', '192.168.1.20', '[fd00::5]'],
      corsOrigins: ['https://a.example.com', 'https://b.example.com'],
      logLevel: 'warn',
      uploadMaxBytes: 2048,
    });
    expect(c.engine.threads).toBe(3);
  });

  it('reports every problem in one error', () => {
    let error: unknown;
    try {
      loadConfig({
        PORT: 'eighty',
        VESTA_PUBLIC_URL: 'not a url',
        VESTA_LOG_LEVEL: 'loud',
        VESTA_UPLOAD_MAX_BYTES: '-5',
        VESTA_CORS_ORIGINS: 'https://ok.example.com/path',
        VESTA_JOB_CONCURRENCY: '0',
        VESTA_ALLOWED_HOSTS: 'ok.example.com, http://vesta.lan:8080',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toHaveLength(7);
    expect(problems).toContain(
      'VESTA_ALLOWED_HOSTS entry "http://vesta.lan:8080" must be a bare host name or address (no scheme, port or path), such as vesta.lan or 192.168.1.20',
    );
    for (const name of [
      'PORT',
      'VESTA_PUBLIC_URL',
      'VESTA_LOG_LEVEL',
      'VESTA_UPLOAD_MAX_BYTES',
      'VESTA_CORS_ORIGINS',
      'VESTA_JOB_CONCURRENCY',
    ]) {
      expect((error as ConfigError).message).toContain(name);
    }
  });
});

describe('runMain', () => {
  it('refuses to start on bad config with one message listing every problem', async () => {
    let written = '';
    const stderr = { write: (s: string) => ((written += s), true) } as unknown as NodeJS.WritableStream;
    const server = await runMain({ env: { PORT: '70000', VESTA_LOG_LEVEL: 'chatty' }, stderr });
    expect(server).toBeNull();
    expect(written.match(/Invalid configuration \(2 problems\)/g)).toHaveLength(1);
    expect(written).toContain('PORT');
    expect(written).toContain('VESTA_LOG_LEVEL');
  });
});

describe('model store and inference settings', () => {
  it('parse from the environment with the rest of the config', () => {
    const c = loadConfig(
      { VESTA_OFFLINE: '1', VESTA_MODELS_DIR: '/srv/models', VESTA_EP: 'cpu', VESTA_INFERENCE_BATCH: '4' },
      '/srv/app',
    );
    expect(c.models).toMatchObject({ cacheDir: '/srv/models', offline: true });
    expect(c.inference).toMatchObject({ provider: 'cpu', batchSize: 4 });
  });

  it('report bad inference settings and a bad manifest among the other problems', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'x', VESTA_EP: 'tpu', VESTA_MODELS_MANIFEST: '/nonexistent/manifest.json' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toMatch(/PORT/);
    expect(problems).toMatch(/VESTA_EP.*tpu|tpu/);
    expect(problems).toMatch(/VESTA_MODELS_MANIFEST/);
  });
});
