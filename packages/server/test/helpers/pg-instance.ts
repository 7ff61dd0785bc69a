/**
 * A PostgreSQL server of the test's own (initdb into a temporary directory, its own port), so that
 * a test may stop and restart it without touching the shared server other tests use. Uses the
 * installed server binaries (/usr/lib/postgresql/<version>/bin); as root they run as the
 * `postgres` user, since PostgreSQL refuses to run as root.
 */
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './core-app.js';

const run = promisify(execFile);

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(path.join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) throw new Error(`no PostgreSQL server binaries under ${root} (see .ci/run)`);
  return path.join(root, versions[0]!, 'bin');
}

export class PgInstance {
  private constructor(
    private readonly dir: string,
    readonly port: number,
    private readonly bin: string,
    private readonly asPostgres: boolean,
  ) {}

  /** initdb (trust authentication, no fsync) and start; creates database `vesta`. */
  static async start(): Promise<PgInstance> {
    const bin = binDir();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'vesta-pg-'));
    const asPostgres = process.getuid?.() === 0;
    if (asPostgres) {
      const { stdout } = await run('id', ['-u', 'postgres']);
      const { stdout: gid } = await run('id', ['-g', 'postgres']);
      chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
    }
    const instance = new PgInstance(dir, await freePort(), bin, asPostgres);
    await instance.exec('initdb', [
      '-D',
      path.join(dir, 'data'),
      '-A',
      'trust',
      '-U',
      'postgres',
      '-E',
      'UTF8',
      '--no-sync',
    ]);
    await instance.resume();
    const admin = new pg.Client({ connectionString: instance.url('postgres') });
    await admin.connect();
    await admin.query('create database vesta');
    await admin.end();
    return instance;
  }

  url(database = 'vesta'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  /** Starts the server again (after `pause`) and waits until it accepts connections. */
  async resume(): Promise<void> {
    await this.exec('pg_ctl', [
      '-D',
      path.join(this.dir, 'data'),
      '-l',
      path.join(this.dir, 'log'),
      '-o',
      `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`,
      '-w',
      '-t',
      '60',
      'start',
    ]);
  }

  /** Stops the server the way a restart does (fast shutdown: sessions are cut off). */
  async pause(): Promise<void> {
    await this.exec('pg_ctl', ['-D', path.join(this.dir, 'data'), '-m', 'fast', '-w', '-t', '60', 'stop']);
  }

  /** Stops the server and removes its files. */
  async destroy(): Promise<void> {
    await this.pause().catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async exec(tool: string, args: string[]): Promise<void> {
    const file = path.join(this.bin, tool);
    if (this.asPostgres) await run('runuser', ['-u', 'postgres', '--', file, ...args], { cwd: this.dir });
    else await run(file, args, { cwd: this.dir });
  }
}
