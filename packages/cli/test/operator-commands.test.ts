/**
 * The operator commands on a real data directory and a real process: `vesta admin create-key`
 * prints only the key (which then authenticates), `revoke-key` revokes it, and `vesta serve`
 * (the built executable, as `npm start` runs it) starts role all, serves requests and shuts
 * down gracefully on SIGTERM; bad configuration exits 78 with one message.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { AccountService, ApiKeyService, Repositories, openDatabase } from '@vesta/server';
import { afterAll, describe, expect, it } from 'vitest';
import { registerAdminCommands } from '../src/commands/admin.js';
import type { CommandHost } from '../src/commands/host.js';

const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(path.join(os.tmpdir(), 'vesta-cli-op-'));
  dirs.push(d);
  return d;
}

async function runAdmin(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ stdout: string; stderr: string; exitCode: number }> {
  let stdout = '';
  let stderr = '';
  const host: CommandHost = {
    io: {
      stdout: { write: (s: string) => (stdout += s) },
      stderr: { write: (s: string) => (stderr += s) },
      env,
    },
    exitCode: 0,
  };
  const program = new Command('vesta').exitOverride();
  registerAdminCommands(program, host);
  await program.parseAsync(args, { from: 'user' });
  return { stdout, stderr, exitCode: host.exitCode };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const a = probe.address();
      probe.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

describe('vesta admin', () => {
  it('create-key prints only the new key; revoke-key revokes it by prefix', async () => {
    const dataDir = tempDir();
    const created = await runAdmin(['admin', 'create-key', '--user', 'alice'], { VESTA_DATA_DIR: dataDir });
    expect(created.exitCode).toBe(0);
    expect(created.stdout).toMatch(/^vsk_[A-Za-z0-9_-]{40}\n$/);
    const key = created.stdout.trim();
    expect(created.stderr).not.toContain(key);
    const second = await runAdmin(['admin', 'create-key', '--user', 'alice', '--data-dir', dataDir]);
    expect(second.stdout.trim()).not.toBe(key);

    const revoke = await runAdmin(['admin', 'revoke-key', key.slice(0, 12), '--data-dir', dataDir]);
    expect(revoke.exitCode).toBe(0);
    const again = await runAdmin(['admin', 'revoke-key', key.slice(0, 12), '--data-dir', dataDir]);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain('no active key');
    const bad = await runAdmin(['admin', 'create-key', '--user', 'no spaces allowed', '--data-dir', dataDir]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stdout).toBe('');
  });
});

/** Signs in on the data directory's database the way the dashboard does; true when accepted. */
async function canSignIn(dataDir: string, email: string, password: string): Promise<boolean> {
  const opened = await openDatabase(dataDir);
  try {
    const accounts = new AccountService(new Repositories(opened.db), {
      webSessionIdleMs: 60_000,
      webSessionMaxMs: 60_000,
    });
    await accounts.signIn({ email, password }, { ip: '127.0.0.1', userAgent: undefined });
    return true;
  } catch {
    return false;
  } finally {
    await opened.close();
  }
}

describe('vesta admin accounts', () => {
  it('create-user, reset-password and disable-user manage dashboard accounts; create-key users keep working', async () => {
    const dataDir = tempDir();
    const env = { VESTA_DATA_DIR: dataDir };
    const made = await runAdmin(['admin', 'create-user', '--email', 'Ops@Example.com', '--admin'], env);
    expect(made.exitCode, made.stderr).toBe(0);
    const password = made.stdout.trim();
    expect(password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(made.stderr).toContain('created admin ops@example.com');
    expect(await canSignIn(dataDir, 'ops@example.com', password)).toBe(true);
    const taken = await runAdmin(['admin', 'create-user', '--email', 'ops@example.com'], env);
    expect(taken.exitCode).toBe(2);
    expect(taken.stderr).toContain('already exists');
    const badEmail = await runAdmin(['admin', 'create-user', '--email', 'not-an-email'], env);
    expect(badEmail.exitCode).toBe(2);

    // A key-only user gets an email and a password; the key it had still works.
    const key = (await runAdmin(['admin', 'create-key', '--user', 'alice'], env)).stdout.trim();
    const upgraded = await runAdmin(
      ['admin', 'create-user', '--email', 'alice@example.com', '--name', 'alice'],
      env,
    );
    expect(upgraded.exitCode, upgraded.stderr).toBe(0);
    expect(await canSignIn(dataDir, 'alice@example.com', upgraded.stdout.trim())).toBe(true);

    const reset = await runAdmin(['admin', 'reset-password', '--email', 'ops@example.com'], env);
    expect(reset.exitCode).toBe(0);
    expect(await canSignIn(dataDir, 'ops@example.com', password)).toBe(false);
    expect(await canSignIn(dataDir, 'ops@example.com', reset.stdout.trim())).toBe(true);
    const unknown = await runAdmin(['admin', 'reset-password', '--email', 'nobody@example.com'], env);
    expect(unknown.exitCode).toBe(2);

    const opened = await openDatabase(dataDir);
    const keys = new ApiKeyService(new Repositories(opened.db), Date.now, { cacheTtlMs: 0 });
    expect(await keys.authenticate(key)).not.toBeNull();
    const disabled = await runAdmin(['admin', 'disable-user', '--user', 'alice'], env);
    expect(disabled.exitCode, disabled.stderr).toBe(0);
    expect(await keys.authenticate(key)).toBeNull();
    await opened.close();
    expect(await canSignIn(dataDir, 'alice@example.com', upgraded.stdout.trim())).toBe(false);
    const neither = await runAdmin(['admin', 'disable-user'], env);
    expect(neither.exitCode).toBe(2);
  });
});

describe('vesta serve', () => {
  it('runs the service from the environment, answers with a key from admin, and stops on SIGTERM', async () => {
    const dataDir = tempDir();
    const port = await freePort();
    const key = (
      await runAdmin(['admin', 'create-key', '--user', 'serve-user'], { VESTA_DATA_DIR: dataDir })
    ).stdout.trim();
    const child = spawn(process.execPath, [BIN, 'serve'], {
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        VESTA_DATA_DIR: dataDir,
        VESTA_ENGINE_THREADS: '1',
        VESTA_LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const end = Date.now() + 30_000;
      while (!out.includes('vesta listening')) {
        if (Date.now() > end) throw new Error(`server did not start: ${out}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const base = `http://127.0.0.1:${port}`;
      expect((await fetch(`${base}/readyz`)).status).toBe(200);
      const res = await fetch(`${base}/api/v1/score`, { headers: { 'x-api-key': key } });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { kind: string }).kind).toBe('score');
      expect((await fetch(`${base}/api/v1/score`)).status).toBe(401);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(out).toContain('shutting down');
    expect(out).not.toContain(key);
  });

  it('exits 78 with one message listing every configuration problem', async () => {
    const child = spawn(process.execPath, [BIN, 'serve'], {
      env: { ...process.env, PORT: 'x', VESTA_LOG_LEVEL: 'nope' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    expect(code).toBe(78);
    expect(err.match(/Invalid configuration/g)).toHaveLength(1);
    expect(err).toContain('PORT');
    expect(err).toContain('VESTA_LOG_LEVEL');
  });
});

describe('the installed executable', () => {
  it("is linked by npm ci as node_modules/.bin/vesta, so the README's `npx vesta …` works", async () => {
    const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
    const linked = path.join(repoRoot, 'node_modules', '.bin', 'vesta');
    const child = spawn(linked, ['--version'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', resolve);
    });
    expect(code).toBe(0);
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
