// The published shapes: ESM, CommonJS and the browser bundle export the same names, and the
// browser bundle pulls in no Node built-in.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const pkgDir = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const dist = (p: string): string => path.join(pkgDir, 'dist', p);

function exportNames(script: string, type: 'commonjs' | 'module'): string[] {
  const out = execFileSync(process.execPath, ['--input-type', type, '-e', script], {
    cwd: pkgDir,
    encoding: 'utf8',
  });
  return (JSON.parse(out) as string[]).sort();
}

describe('packaging', () => {
  it('ships ESM, CommonJS (with .d.cts types) and a browser bundle with the same exports', () => {
    for (const f of [
      'index.js',
      'index.d.ts',
      'cjs/index.cjs',
      'cjs/index.d.cts',
      'browser/vesta.js',
      'browser.d.ts',
    ]) {
      expect(existsSync(dist(f)), `dist/${f} (run npm run build)`).toBe(true);
    }
    const esm = exportNames(
      `const m = await import(${JSON.stringify(dist('index.js'))}); console.log(JSON.stringify(Object.keys(m)))`,
      'module',
    );
    const cjs = exportNames(
      `console.log(JSON.stringify(Object.keys(require(${JSON.stringify(dist('cjs/index.cjs'))}))))`,
      'commonjs',
    );
    const browser = exportNames(
      `const m = await import(${JSON.stringify(dist('browser/vesta.js'))}); console.log(JSON.stringify(Object.keys(m)))`,
      'module',
    );
    expect(esm).toContain('Vesta');
    expect(cjs).toEqual(esm);
    expect(browser).toEqual(esm);
  });

  it('keeps Node built-ins and environment reads out of the browser bundle', () => {
    const bundle = readFileSync(dist('browser/vesta.js'), 'utf8');
    expect(bundle).not.toMatch(/from\s+["']node:/);
    expect(bundle).not.toMatch(/require\(["']/);
    expect(bundle).not.toContain('process.env');
  });

  it('resolves the package by its export conditions', () => {
    const pkg = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8')) as {
      exports: Record<string, Record<string, { types: string; default: string }>>;
    };
    const root = pkg.exports['.']!;
    expect(Object.keys(root)).toEqual(['browser', 'import', 'require']);
    for (const cond of Object.values(root)) {
      expect(existsSync(path.join(pkgDir, cond.types))).toBe(true);
      expect(existsSync(path.join(pkgDir, cond.default))).toBe(true);
    }
  });
});
