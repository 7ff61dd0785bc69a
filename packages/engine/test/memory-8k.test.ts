/**
 * One scoring slot at the size limit (issue #24, item 13): a 7680x4320 H.264 clip scored on the
 * seven model-free dimensions with two worker threads must keep Node + FFmpeg under 1 GiB of
 * resident memory. Native frames reach the methods in bands of rows (never whole), FFmpeg decodes
 * 8K with one thread. Before that, one 8K clip took Node to ~1.4 GiB and Node + FFmpeg to ~2 GiB.
 * The resident set of the child process and its FFmpeg is sampled from /proc every 20 ms.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultFfmpegPath } from '../src/decode/binaries.js';

const CHILD = fileURLToPath(new URL('./helpers/evaluate-child.ts', import.meta.url));
const LIMIT_KIB = 1024 * 1024;

let dir: string;
let clip: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'vesta-8k-'));
  clip = path.join(dir, '8k.mp4');
  execFileSync(defaultFfmpegPath(), [
    '-hide_banner',
    '-loglevel',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    'testsrc2=size=7680x4320:rate=30',
    '-frames:v',
    '4',
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-crf',
    '28',
    '-pix_fmt',
    'yuv420p',
    clip,
  ]);
}, 120_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function rssKib(pid: number | string): number {
  try {
    const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** RSS of `pid` and its direct children (FFmpeg), KiB. */
function treeKib(pid: number): number {
  let total = rssKib(pid);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
      if (ppid === pid) total += rssKib(entry);
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

describe.runIf(process.platform === 'linux')('one scoring slot at 7680x4320', () => {
  it(
    'scores all seven model-free dimensions with Node + FFmpeg under 1 GiB',
    { timeout: 240_000 },
    async () => {
      const child = spawn(process.execPath, ['--import', 'tsx', CHILD, clip], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let peak = 0;
      const timer = setInterval(() => (peak = Math.max(peak, treeKib(child.pid!))), 20);
      let out = '';
      let err = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      clearInterval(timer);
      expect(code, err).toBe(0);
      const result = JSON.parse(out.trim().split('\n').pop()!) as {
        scores: Array<[string, number]>;
        failures: unknown[];
      };
      expect(result.failures).toEqual([]);
      expect(result.scores).toHaveLength(7);
      expect(Math.round(peak / 1024)).toBeLessThanOrEqual(LIMIT_KIB / 1024);
    },
  );
});
