// Placeholders reach the shell as single words, verbatim, whatever the prompt contains; the output
// check tells video containers from other files.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fillCommand, looksLikeVideo, shellQuote } from '../src/commands/runner-exec.js';
import { corpusClip } from '../../sdk/test/support/server.js';

const values = {
  prompt: '',
  seed: '7',
  output: '/tmp/out dir/clip.mp4',
  sample_index: '0',
  task_id: 't',
  run_id: 'r',
};

describe('fillCommand', () => {
  it.each([
    "a cat's tail",
    'rm -rf / ; echo pwned',
    '$(touch /tmp/vesta-should-not-exist) `id` $HOME',
    'quotes " and \' and \\ backslashes',
    'new\nline and\ttab',
    '{seed} is not expanded twice',
  ])('passes %j as one argument, verbatim', (prompt) => {
    const cmd = fillCommand('printf "%s|%s|%s" {prompt} {seed} {output}', { ...values, prompt });
    const out = execFileSync('/bin/sh', ['-c', cmd], { encoding: 'utf8' });
    expect(out).toBe(`${prompt}|7|/tmp/out dir/clip.mp4`);
  });

  it('leaves unknown braces alone and quotes every placeholder', () => {
    expect(fillCommand('echo {other} {sample_index} {task_id} {run_id}', values)).toBe(
      "echo {other} '0' 't' 'r'",
    );
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  });
});

describe('looksLikeVideo', () => {
  it('knows an MP4 and refuses text, empty and short files', () => {
    const mp4 = readFileSync(corpusClip('zeroscope-v2__toad-karate.mp4')).subarray(0, 192);
    expect(looksLikeVideo(mp4)).toBe(true);
    expect(looksLikeVideo(new TextEncoder().encode('not a video, just some text that is long enough'))).toBe(
      false,
    );
    expect(looksLikeVideo(new Uint8Array(0))).toBe(false);
    expect(looksLikeVideo(Uint8Array.from([0x1a, 0x45, 0xdf, 0xa3, 0, 0, 0, 0, 0, 0, 0, 0]))).toBe(true);
  });
});
