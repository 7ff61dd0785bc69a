/** A reader that closes the pipe early (`vesta --help | head -1`) ends the command quietly. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

describe('vesta writing to a closed pipe', () => {
  it('exits 0 without a stack trace when the reader stops after the first line', async () => {
    const child = spawn(process.execPath, [BIN, 'bench', '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    // Read one chunk, then close our end, as `head -1` does.
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    expect(stderr).not.toContain('EPIPE');
    expect(code).toBe(0);
  });
});
