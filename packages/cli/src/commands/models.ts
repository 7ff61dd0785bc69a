/**
 * The local model store (the weights Vesta's model-backed dimensions run; the video generators of
 * the API's `GET /api/v1/models` are `vesta bench models`):
 *
 *   vesta models list [ID...]               installed?, size, precisions, dimensions, pins (alias: status)
 *   vesta models pull [ID...|--all] [--precision P] [--offline]
 *   vesta models verify [ID...]             re-hash installed files; corrupt ones are deleted
 *   vesta models rm ID... [--unpin]
 *
 * Every subcommand takes `--json`. Progress goes to stderr: a redrawn bar on a terminal, one line
 * per file otherwise, nothing under `--json`; colours follow NO_COLOR. The engine is imported only
 * when one of these commands runs, so other commands start as fast as before.
 * Environment: VESTA_MODELS_DIR, VESTA_MODELS_LOCAL_DIR, VESTA_MODELS_MIRROR, VESTA_OFFLINE,
 * VESTA_MODELS_MANIFEST (docs/models.md).
 */
import type { Command } from 'commander';
import type { ModelStatus, ModelStore, Precision, VerifyReport } from '@vesta/engine';
import { formatBytes, PullProgress, type ProgressStream } from '../output/progress.js';
import type { Style } from '../output/style.js';
import { EXIT } from '../context.js';
import { renderTable } from '../output/table.js';
import { group, leaf } from './common.js';

/** What the commands need from the CLI; `CliContext` satisfies it. */
export interface ModelsCommandHost {
  io: { stdout: ProgressStream; stderr: ProgressStream; env: Record<string, string | undefined> };
  exitCode: number;
  readonly signal: AbortSignal;
  readonly outStyle: Style;
  readonly errStyle: Style;
}

interface CommonOptions {
  json?: boolean;
  offline?: boolean;
}

async function openStore(host: ModelsCommandHost, options: CommonOptions): Promise<ModelStore> {
  const { createModelStore, modelStoreOptionsFromEnv } = await import('@vesta/engine');
  return createModelStore(modelStoreOptionsFromEnv(host.io.env, options.offline ? { offline: true } : {}));
}

/** Reports an error (JSON on stderr under `--json`) and sets the exit code. */
function fail(host: ModelsCommandHost, json: boolean, err: unknown): void {
  const e = err as { code?: unknown; reason?: unknown; name?: unknown; message?: unknown };
  let code = typeof e.code === 'string' ? e.code : 'cli_error';
  const reason = typeof e.reason === 'string' ? e.reason : undefined;
  const detail = typeof e.message === 'string' ? e.message : String(err);
  if (e.name === 'ManifestError') code = 'invalid_manifest';
  if (code === 'aborted' || (host.signal.aborted && e.name === 'AbortError')) code = 'interrupted';
  host.exitCode =
    code === 'interrupted'
      ? EXIT.interrupted
      : code === 'invalid_manifest' ||
          code === 'usage' ||
          reason === 'unknown_model' ||
          reason === 'unknown_precision'
        ? EXIT.usage
        : EXIT.failure;
  if (json) {
    host.io.stderr.write(`${JSON.stringify({ error: { code, detail, ...(reason ? { reason } : {}) } })}\n`);
    return;
  }
  const s = host.errStyle;
  host.io.stderr.write(`${s.red('error')} ${s.bold(reason ?? code)}: ${detail}\n`);
}

function run<A extends unknown[]>(
  host: ModelsCommandHost,
  body: (options: CommonOptions & Record<string, unknown>, ...args: A) => Promise<void>,
): (...all: [...A, CommonOptions & Record<string, unknown>, Command]) => Promise<void> {
  return async (...all) => {
    const options = all[all.length - 2] as CommonOptions & Record<string, unknown>;
    const args = all.slice(0, -2) as unknown as A;
    try {
      await body(options, ...args);
    } catch (err) {
      fail(host, options.json === true, err);
    }
  };
}

function print(host: ModelsCommandHost, json: boolean, value: unknown, human: () => string): void {
  if (json) host.io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  else {
    const text = human();
    host.io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  }
}

/** What a pull will fetch: the files missing at each model's precision and their known sizes. */
function pullPlan(
  list: ModelStatus[],
  ids: string[],
  precisionOf: (id: string) => Precision | undefined,
  s: Style,
): string {
  let files = 0;
  let bytes = 0;
  let unknown = 0;
  let models = 0;
  for (const m of list.filter((x) => ids.includes(x.id))) {
    const p = precisionOf(m.id) ?? m.precisions[0]?.precision;
    const missing = m.files.filter((f) => !f.present && (f.precision === null || f.precision === p));
    if (missing.length === 0) continue;
    models++;
    files += missing.length;
    for (const f of missing) {
      if (f.size === null) unknown++;
      else bytes += Math.max(0, f.size - f.bytesOnDisk);
    }
  }
  if (files === 0) return s.dim(`Nothing to fetch: ${ids.length} model(s) already installed`);
  const sizes =
    unknown === files
      ? 'sizes known once each transfer starts'
      : `${formatBytes(bytes)}${unknown > 0 ? ` + ${unknown} file(s) of unknown size` : ''}`;
  return `To fetch: ${models} model(s), ${files} file(s), ${sizes}`;
}

function selectIds(store: ModelStore, ids: string[]): string[] {
  return ids.length > 0 ? ids : store.manifest.map((m) => m.id);
}

function statusRows(list: ModelStatus[], s: Style): string {
  return renderTable(
    ['id', 'installed', 'precisions', 'on disk', 'revision', 'licence', 'dimensions'],
    list.map((m) => [
      m.id,
      m.installed ? s.green('yes') : s.dim('no'),
      m.precisions.map((p) => (p.installed ? s.green(p.precision) : s.dim(p.precision))).join(','),
      m.bytesOnDisk > 0 ? formatBytes(m.bytesOnDisk) : '',
      m.revision
        ? `${m.revision.slice(0, 7)}${m.revisionPinnedBy === 'lock' ? ' (pinned on first use)' : ''}`
        : s.dim('on first pull'),
      m.licence,
      m.dimensions.join(','),
    ]),
    s,
  );
}

function verifyText(reports: VerifyReport[], s: Style): string {
  const lines: string[] = [];
  for (const r of reports) {
    const present = r.files.filter((f) => f.state !== 'absent');
    if (present.length === 0) {
      lines.push(`${r.id}: ${s.dim('not installed')}`);
      continue;
    }
    lines.push(`${r.id}: ${r.ok ? s.green('ok') : s.red('corrupt files deleted')}`);
    for (const f of present) {
      const state =
        f.state === 'ok' ? s.green('ok') : f.state === 'pinned_now' ? s.yellow('pinned now') : s.red(f.state);
      lines.push(`  ${f.path}  ${state}`);
    }
    if (!r.ok) lines.push(`  run \`vesta models pull ${r.id}\` to fetch them again`);
  }
  return lines.join('\n');
}

/** Adds `list` (alias `status`), `pull`, `verify` and `rm` to the `models` command (created when absent). */
export function registerModelsCommand(program: Command, host: ModelsCommandHost): void {
  const models =
    program.commands.find((c) => c.name() === 'models') ??
    program
      .command('models')
      .description(
        'The local model store: ONNX weights of the model-backed dimensions (generators: vesta bench models)',
      );
  group(models, [
    'vesta models list',
    'vesta models pull clip-vit-b32 dino-vitb16',
    'vesta models pull clip-vit-l14 --precision q8',
    'vesta models verify --json',
    'vesta models rm clip-vit-l14',
  ]);
  models.addHelpText(
    'after',
    '\nModel store (the weights of the model-backed dimensions; env VESTA_MODELS_DIR, VESTA_MODELS_MIRROR,\n' +
      'VESTA_MODELS_LOCAL_DIR, VESTA_OFFLINE): list, pull, verify, rm. See docs/models.md.\n' +
      'The video generators that Bench runs evaluate are listed by `vesta bench models`.\n',
  );

  leaf(
    models
      .command('list')
      .alias('status')
      .description('List the scoring models of the local model store: installed?, size, dimensions')
      .argument('[id...]', 'model ids (default: every model in the manifest)')
      .option('--offline', 'report availability as in offline mode (env VESTA_OFFLINE=1)'),
    ['vesta models list', 'vesta models list clip-vit-b32 --json'],
  ).action(
    run(host, async (options, ids: string[]) => {
      const store = await openStore(host, options);
      const wanted = new Set(selectIds(store, ids));
      for (const id of ids) {
        if (!store.manifest.some((m) => m.id === id)) {
          throw Object.assign(
            new Error(`unknown model "${id}" (known: ${store.manifest.map((m) => m.id).join(', ')})`),
            {
              code: 'model_unavailable',
              reason: 'unknown_model',
            },
          );
        }
      }
      const list = (await store.list()).filter((m) => wanted.has(m.id));
      const unreachable = store.unreachableSources();
      print(
        host,
        options.json === true,
        { cacheDir: store.cacheDir, offline: store.offline, unreachable, models: list },
        () =>
          [
            statusRows(list, host.outStyle),
            host.outStyle.dim(`cache: ${store.cacheDir}`),
            ...unreachable.map((u) =>
              host.outStyle.yellow(
                `unreachable moments ago, skipped until ${new Date(u.until).toISOString()}: ${u.origin} (${u.error}); \`vesta models pull\` tries again now`,
              ),
            ),
          ].join('\n'),
      );
    }),
  );

  leaf(
    models
      .command('pull')
      .description('Download models into the store (resumable, checked against their sha256)')
      .argument('[id...]', 'model ids (default: every model in the manifest)')
      .option('--all', 'every model in the manifest, fetched ahead of first use')
      .option('--precision <p>', 'fp32 (default), fp16 or q8, where the model publishes it')
      .option('--offline', 'use only the cache and VESTA_MODELS_LOCAL_DIR (env VESTA_OFFLINE=1)'),
    [
      'vesta models pull --all',
      'vesta models pull clip-vit-b32 --precision fp16',
      'vesta models pull dino-vitb16 --json',
    ],
  ).action(
    run(host, async (options, ids: string[]) => {
      if (options.all === true && ids.length > 0)
        throw Object.assign(new Error('give model ids or --all, not both'), { code: 'usage' });
      const store = await openStore(host, options);
      const json = options.json === true;
      const progress = new PullProgress(host.io.stderr, host.errStyle);
      const precision = typeof options.precision === 'string' ? options.precision : undefined;
      // With no ids, a precision a model does not publish falls back to its default.
      const precisionOf = (id: string): Precision | undefined => {
        const entry = store.manifest.find((m) => m.id === id);
        return precision && (ids.length > 0 || entry?.precisions.includes(precision as Precision))
          ? (precision as Precision)
          : undefined;
      };
      const selected = selectIds(store, ids);
      if (!json)
        host.io.stderr.write(`${pullPlan(await store.list(), selected, precisionOf, host.errStyle)}\n`);
      const results = [];
      for (const id of selected) {
        const usable = precisionOf(id);
        const installed = await store.ensure(id, {
          ...(usable ? { precision: usable } : {}),
          // An explicit pull tries every source, even one remembered as unreachable.
          retryUnreachable: true,
          signal: host.signal,
          ...(json ? {} : { onProgress: progress.onProgress }),
          onWaitForOtherProcess: () => {
            if (!json) host.io.stderr.write(`Waiting for another process pulling ${id}\n`);
          },
        });
        progress.end();
        if (!json) {
          host.io.stderr.write(
            `${host.errStyle.green(installed.fetched ? 'pulled' : 'present')} ${id} (${installed.precision}, ${installed.revision ?? 'unpinned'})\n`,
          );
        }
        results.push({
          id: installed.id,
          precision: installed.precision,
          revision: installed.revision,
          fetched: installed.fetched,
          dir: installed.dir,
          files: installed.files,
        });
      }
      print(host, json, { cacheDir: store.cacheDir, models: results }, () =>
        host.outStyle.dim(`${results.length} model(s) ready in ${store.cacheDir}`),
      );
    }),
  );

  leaf(
    models
      .command('verify')
      .description('Re-hash installed files against their pins; corrupt files are deleted (exit 1)')
      .argument('[id...]', 'model ids (default: every model in the manifest)'),
    ['vesta models verify', 'vesta models verify clip-vit-b32 --json'],
  ).action(
    run(host, async (options, ids: string[]) => {
      const store = await openStore(host, options);
      const reports = await store.verify(ids, { signal: host.signal });
      const ok = reports.every((r) => r.ok);
      if (!ok) host.exitCode = EXIT.failure;
      print(host, options.json === true, { ok, models: reports }, () => verifyText(reports, host.outStyle));
    }),
  );

  leaf(
    models
      .command('rm')
      .description('Delete models from the store (their pins stay unless --unpin)')
      .argument('<id...>', 'model ids')
      .option('--unpin', 'also forget the revision and hashes pinned on first use'),
    ['vesta models rm clip-vit-l14', 'vesta models rm dino-vitb16 --unpin --json'],
  ).action(
    run(host, async (options, ids: string[]) => {
      const store = await openStore(host, options);
      const removed: Array<{ id: string; removedBytes: number }> = [];
      for (const id of ids) {
        const { removedBytes } = await store.remove(id, { unpin: options.unpin === true });
        removed.push({ id, removedBytes });
      }
      print(host, options.json === true, { removed }, () =>
        removed.map((r) => `removed ${r.id} (${formatBytes(r.removedBytes)})`).join('\n'),
      );
    }),
  );
}
