/**
 * `vesta serve` in a terminal says where to open the browser (and that first-run setup is open);
 * under pipes, as a service manager runs it, it prints only its JSON log lines.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startBanner } from '../src/commands/serve-banner.js';

const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(path.join(os.tmpdir(), 'vesta-banner-'));
  dirs.push(d);
  return d;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Runs `vesta serve` until `until` appears in its output (or 30 s), then stops it with SIGTERM. */
async function serveOutput(command: string, args: string[], env: Record<string, string>, until: string) {
  const child = spawn(command, args, {
    env: { ...process.env, VESTA_ENGINE_THREADS: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const end = Date.now() + 30_000;
  try {
    while (!out.includes(until) && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
    // Whatever the process prints right after its start line.
    await new Promise((r) => setTimeout(r, 300));
  } finally {
    child.kill('SIGTERM');
  }
  await exited;
  return out;
}

describe('vesta serve start banner', () => {
  it('in a terminal: where to open the browser and that setup is open; under pipes: JSON lines only', async () => {
    const dataDir = tempDir();
    const port = await freePort();
    const env = { PORT: String(port), HOST: '127.0.0.1', VESTA_DATA_DIR: dataDir };
    // `script` gives the command a real pseudo-terminal (util-linux, on every Debian machine).
    const tty = await serveOutput(
      'script',
      ['-qefc', `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} serve`, '/dev/null'],
      env,
      'Stop with Ctrl-C',
    );
    expect(tty).toContain(`Vesta is running. Open http://localhost:${port}/ in a browser.`);
    expect(tty).toContain('First visit: it asks for the admin account');
    expect(tty).toContain(`SQLite in ${dataDir}`);

    const piped = await serveOutput(process.execPath, [BIN, 'serve'], env, 'vesta listening');
    expect(piped).toContain('vesta listening');
    expect(piped).not.toContain('Open http://');
    for (const line of piped.trim().split(/\r?\n/)) expect(() => JSON.parse(line) as unknown).not.toThrow();
  });

  it('names the cluster parts for the api and worker roles', () => {
    const api = startBanner({
      role: 'api',
      publicUrl: 'https://vesta.example.com/',
      dataDir: '/srv/vesta',
      postgres: true,
      s3Bucket: 'clips',
      setupRequired: false,
    });
    expect(api).toContain('Open https://vesta.example.com/ in a browser.');
    expect(api).toContain('Sign in there');
    expect(api).toContain('PostgreSQL (VESTA_DATABASE_URL); clips: S3 bucket clips.');
    const worker = startBanner({
      role: 'worker',
      publicUrl: 'http://localhost:9100',
      dataDir: '/srv/vesta',
      postgres: true,
      s3Bucket: null,
      setupRequired: null,
    });
    expect(worker).toContain('Vesta worker is running');
    expect(worker).toContain('http://localhost:9100/healthz');
    expect(worker).not.toContain('browser');
  });
});
