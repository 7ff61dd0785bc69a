// The browser build in headless Chromium: a page imports dist/browser/vesta.js, uploads a File
// chosen in an <input type=file> to the real server (cross-origin, so CORS is exercised too) and
// reads its scores. Under CI=true a missing Chromium fails this test; locally it is skipped with
// a warning that says why.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusClip, startTestServer, type TestServer } from './support/server.js';

const chromiumPath = '/usr/bin/chromium';
const haveChromium = existsSync(chromiumPath);
const inCi = process.env.CI === 'true';
const bundle = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../dist/browser/vesta.js');
const clip = corpusClip('zeroscope-v2__toad-karate.mp4');
const launchArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

if (!haveChromium && !inCi) {
  console.warn(
    `\n*** SKIPPING the browser SDK test: ${chromiumPath} is not installed (apt-get install -y chromium). Under CI=true it fails instead. ***\n`,
  );
}

const page = `<!doctype html>
<html>
  <head><meta charset="utf-8"><title>Vesta browser SDK</title></head>
  <body>
    <input type="file" id="clip" accept="video/*">
    <script type="module">
      import { Vesta } from '/vesta.js';
      const params = new URLSearchParams(location.hash.slice(1));
      const vesta = new Vesta({ apiKey: params.get('key'), baseUrl: params.get('api') });
      document.getElementById('clip').addEventListener('change', async (event) => {
        const file = event.target.files[0];
        const progress = [];
        try {
          const result = await vesta.score.upload(file, { prompt: params.get('prompt'), wait: true, onProgress: (e) => progress.push(e) });
          const session = await vesta.score.getOrCreate();
          window.outcome = { ok: true, result, progress, session };
        } catch (err) {
          window.outcome = { ok: false, error: { name: err.name, code: err.code, message: err.message } };
        }
      });
      window.vestaReady = true;
    </script>
  </body>
</html>`;

interface Outcome {
  ok: boolean;
  error?: { name: string; code: string; message: string };
  result?: {
    runId: string;
    videoId: string;
    state: string;
    video: { scores: { dimension: string; value: number }[] };
  };
  progress?: { phase: string; loaded?: number; total?: number; state?: string }[];
  session?: { runId: string; videos: { videoId: string; state: string }[] };
}

describe.skipIf(!haveChromium && !inCi)('browser SDK in headless Chromium', () => {
  let api: TestServer;
  let site: Server;
  let siteUrl: string;
  let browser: Browser | undefined;

  beforeAll(async () => {
    if (!haveChromium)
      throw new Error(`${chromiumPath} is missing (CI=true): .ci/run installs the chromium package`);
    if (!existsSync(bundle)) throw new Error(`${bundle} is missing: build the SDK first (npm run build)`);
    api = await startTestServer();
    site = createServer((req, res) => {
      if (req.url === '/vesta.js') {
        res.writeHead(200, { 'content-type': 'text/javascript' });
        res.end(readFileSync(bundle));
      } else if (req.url === '/' || req.url?.startsWith('/#')) {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(page);
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: launchArgs });
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((r) => (site ? site.close(() => r()) : r()));
    await api?.stop();
  });

  it('uploads a File from an <input> and reads its scores', async () => {
    const tab = await browser!.newPage();
    const pageErrors: string[] = [];
    tab.on('pageerror', (e) => pageErrors.push(e.message));
    const hash = new URLSearchParams({
      key: await api.newKey(),
      api: api.baseUrl,
      prompt: 'Toad practicing karate.',
    }).toString();
    await tab.goto(`${siteUrl}/#${hash}`);
    await tab.waitForFunction(() => (window as unknown as { vestaReady?: boolean }).vestaReady === true);
    await tab.setInputFiles('#clip', clip);
    await tab.waitForFunction(
      () => (window as unknown as { outcome?: unknown }).outcome !== undefined,
      undefined,
      { timeout: 120_000 },
    );
    const outcome = await tab.evaluate(() => (window as unknown as { outcome: Outcome }).outcome);
    expect(pageErrors).toEqual([]);
    expect(outcome.error).toBeUndefined();
    expect(outcome.ok).toBe(true);
    expect(outcome.result!.state).toBe('scored');
    expect(outcome.result!.video.scores.length).toBeGreaterThan(0);
    const size = statSync(clip).size;
    const uploads = outcome.progress!.filter((p) => p.phase === 'upload');
    expect(uploads[uploads.length - 1]!.loaded).toBe(size);
    expect(outcome.session!.videos.find((v) => v.videoId === outcome.result!.videoId)?.state).toBe('scored');
  });
});
