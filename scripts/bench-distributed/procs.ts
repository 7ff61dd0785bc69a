/**
 * Vesta processes for the `bench:distributed` sections: `vesta serve` and `vesta admin` started
 * from the built CLI as separate OS processes, as an operator runs them.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const BIN = path.resolve(
  fileURLToPath(new URL('.', import.meta.url)),
  '../../packages/cli/dist/bin.js',
);
export const CORPUS = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../shared/corpus');

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const a = probe.address();
      probe.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

export class VestaProcess {
  readonly child: ChildProcess;
  output = '';
  readonly exited: Promise<number | null>;
  /** `cpu`: run on that CPU only (`taskset -c`, inherited by its FFmpeg children). */
  constructor(args: string[], env: Record<string, string>, bin: string = BIN, cpu?: number) {
    const command = [process.execPath, bin, ...args];
    // taskset execs the command, so the child's pid (and its /proc/<pid>/stat) is Node's.
    const [file, ...rest] = cpu === undefined ? command : ['taskset', '-c', String(cpu), ...command];
    this.child = spawn(file!, rest, {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (c: Buffer): void => {
      this.output = (this.output + c.toString()).slice(-10_000);
    };
    this.child.stdout!.on('data', keep);
    this.child.stderr!.on('data', keep);
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
  }

  /** CPU seconds (user + system) the process has used so far, from /proc. */
  cpuSeconds(): number {
    const stat = readFileSync(`/proc/${this.child.pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    await this.exited;
  }
}

/**
 * `vesta serve --role <role>` on a free port; resolves once /readyz answers 200. `bin` is another
 * build's CLI (to compare two versions side by side), this checkout's by default.
 */
export async function serve(
  role: 'all' | 'api' | 'worker',
  env: Record<string, string>,
  bin: string = BIN,
  cpu?: number,
): Promise<VestaProcess & { base: string }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const proc = new VestaProcess(
    ['serve', '--role', role],
    {
      PORT: String(port),
      HOST: '127.0.0.1',
      VESTA_PUBLIC_URL: base,
      VESTA_OFFLINE: '1',
      VESTA_ENGINE_THREADS: '1',
      VESTA_LOG_LEVEL: 'warn',
      ...env,
    },
    bin,
    cpu,
  );
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (proc.child.exitCode !== null) throw new Error(`vesta serve --role ${role} exited: ${proc.output}`);
    const ok = await fetch(`${base}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`vesta serve --role ${role} not ready: ${proc.output}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return Object.assign(proc, { base });
}

/** `vesta admin create-key` (migrates the database first); returns the key. */
export async function createKey(
  env: Record<string, string>,
  user: string,
  bin: string = BIN,
): Promise<string> {
  const admin = new VestaProcess(['admin', 'create-key', '--user', user], env, bin);
  if ((await admin.exited) !== 0) throw new Error(`vesta admin create-key failed: ${admin.output}`);
  const key = admin.output.split(/\s+/).find((w) => w.startsWith('vsk_'));
  if (!key) throw new Error(`no key in: ${admin.output}`);
  return key;
}

export async function call(
  base: string,
  key: string,
  method: string,
  p: string,
  body?: unknown,
): Promise<{ status: number; json: () => Record<string, unknown> }> {
  const res = await fetch(`${base}${p}`, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status >= 400) throw new Error(`${method} ${p}: ${res.status} ${text}`);
  return { status: res.status, json: () => JSON.parse(text) as Record<string, unknown> };
}

/** The machine's CPU time so far, busy and total, in clock ticks (first line of /proc/stat). */
export function machineCpu(): { busy: number; total: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = f.reduce((a, b) => a + b, 0);
  const idle = (f[3] ?? 0) + (f[4] ?? 0); // idle + iowait
  return { busy: total - idle, total };
}
