/** `vesta bench …`: create, list, get, cancel, delete, and read a run's videos, CSV and logs. */
import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { BenchLogLine, BenchRun, BenchScorecard, BenchVideo, Page } from '@vesta/sdk';
import { action, type CliContext } from '../context.js';
import type { Style } from '../output/style.js';
import { renderFields, renderTable } from '../output/table.js';
import { registerBenchCompareCommands } from './bench-compare.js';
import { group, leaf, list, positiveInt } from './common.js';

function statusColour(style: Style, status: string): string {
  if (status === 'completed') return style.green(status);
  if (status === 'failed' || status === 'cancelled') return style.red(status);
  return style.cyan(status);
}

function progressText(run: BenchRun): string {
  const p = run.progress;
  return `${p.tasks_done}/${p.tasks_total} done, ${p.tasks_generated} generated, ${p.tasks_failed} failed`;
}

const num = (x: number | null): string => (x === null ? '—' : x.toFixed(4));
const ci = (low: number | null, high: number | null): string =>
  low === null || high === null ? '—' : `[${low.toFixed(4)}, ${high.toFixed(4)}]`;

/** Per dimension and aggregate: the score, its 95 % interval, and the clips and prompts behind it. */
export function renderScorecard(card: BenchScorecard, style: Style): string {
  const rows = [
    ...card.dimensions.map((d) => [
      d.dimension,
      num(d.score),
      ci(d.ci95_low, d.ci95_high),
      d.clips,
      d.prompts,
    ]),
    ...card.aggregates.map((a) => [
      style.bold(a.partial ? `${a.name} (partial)` : a.name),
      num(a.value),
      ci(a.ci95_low, a.ci95_high),
      a.clips,
      a.prompts,
    ]),
  ];
  const note = card.final ? '' : style.dim('\nprovisional: the run is still going; scores so far');
  return `${renderTable(['dimension', 'score', '95% interval', 'clips', 'prompts'], rows, style)}${note}`;
}

function renderRun(run: BenchRun, style: Style): string {
  const fields = renderFields(
    {
      id: run.id,
      name: run.name,
      status: statusColour(style, run.status),
      model_id: run.model_id,
      runner_id: run.runner_id ?? '(any runner serving the model)',
      dimensions: run.dimensions,
      progress: progressText(run),
      error: run.error ? `${run.error.code}: ${run.error.detail}` : null,
      created_at: run.created_at,
      finished_at: run.finished_at,
    },
    style,
  );
  // Where the numbers are: the dimensions asked for that could not be scored, and scores that read
  // no prompt, each with the command that fixes it.
  const notes = [
    ...run.unscored_dimensions.map((u) => style.yellow(`Not scored: ${u.detail}`)),
    ...(run.prompt_notice ? [style.yellow(`Note: ${run.prompt_notice.detail}`)] : []),
  ];
  const head = notes.length > 0 ? `${fields}\n${notes.join('\n')}` : fields;
  return run.scorecard ? `${head}\n\n${renderScorecard(run.scorecard, style)}` : head;
}

interface PageFlags {
  page?: number;
  limit?: number;
  all?: boolean;
}

/** One page, or every page with --all (reported as one page holding everything). */
async function pageOrAll<T>(
  flags: PageFlags,
  one: (p: { page?: number; limit?: number }) => Promise<Page<T>>,
  all: () => AsyncGenerator<T>,
): Promise<Page<T>> {
  if (!flags.all) return one({ page: flags.page, limit: flags.limit });
  const items: T[] = [];
  for await (const item of all()) items.push(item);
  return { items, page: 1, limit: items.length, total: items.length, hasMore: false };
}

function pageFooter(page: Page<unknown>, style: Style): string {
  return style.dim(
    `page ${page.page} · ${page.items.length} of ${page.total}${page.hasMore ? ` · more: --page ${page.page + 1}` : ''}`,
  );
}

function addPaging(cmd: Command, what: string): Command {
  return cmd
    .option('--page <n>', 'page number, from 1', positiveInt)
    .option('--limit <n>', `${what} per page`, positiveInt)
    .option('--all', `fetch every page of ${what}`);
}

export function registerBenchCommands(program: Command, ctx: CliContext): void {
  const bench = group(
    program.command('bench').description('Bench runs: evaluate a model on a list of dimensions'),
    [
      'vesta bench create --name nightly --dimensions subject_consistency,aesthetic_quality --model-id my-model',
      'vesta bench list',
      'vesta bench get bench_123 --json',
      'vesta bench csv bench_123 -o scorecard.csv',
      'vesta bench compare bench_base bench_new --fail-on-regression 0.01',
    ],
  );
  const sig = (): { signal: AbortSignal } => ({ signal: ctx.signal });

  leaf(
    bench
      .command('create')
      .description('Create a Bench run (runners generate its clips; the service scores them)')
      .requiredOption('-n, --name <name>', 'a label for the run')
      .requiredOption(
        '-d, --dimensions <ids>',
        'dimension ids, comma-separated or repeated (see `vesta dimensions list`)',
        list,
      )
      .requiredOption('-m, --model-id <id>', 'the model to evaluate (see `vesta bench models`)')
      .option(
        '-r, --runner-id <id>',
        'the only runner allowed to generate the clips (default: any serving the model)',
      )
      .option(
        '--samples-per-prompt <n>',
        'clips generated per prompt (default: the server default)',
        positiveInt,
      )
      .option(
        '--prompts-per-dimension <n>',
        "prompts taken from each dimension's suite (default: all of them)",
        positiveInt,
      ),
    [
      'vesta bench create --name nightly --dimensions subject_consistency,aesthetic_quality --model-id my-model --runner-id gpu-1',
      'vesta bench create -n smoke -d aesthetic_quality -m my-model --json',
    ],
  ).action(
    action(ctx, async (cmd) => {
      const o = cmd.opts<{
        name: string;
        dimensions: string[];
        modelId: string;
        runnerId?: string;
        samplesPerPrompt?: number;
        promptsPerDimension?: number;
      }>();
      const run = await ctx.client(cmd).bench.create(
        {
          name: o.name,
          dimensions: o.dimensions,
          modelId: o.modelId,
          runnerId: o.runnerId,
          samplesPerPrompt: o.samplesPerPrompt,
          promptsPerDimension: o.promptsPerDimension,
        },
        sig(),
      );
      ctx.print(cmd, run, (s) => `${s.green('Created.')}\n${renderRun(run, s)}`);
    }),
  );

  leaf(addPaging(bench.command('list').description('List your Bench runs, newest first'), 'runs'), [
    'vesta bench list',
    'vesta bench list --all --json',
    'vesta bench list --page 2 --limit 50',
  ]).action(
    action(ctx, async (cmd) => {
      const vesta = ctx.client(cmd);
      const page = await pageOrAll(
        cmd.opts<PageFlags>(),
        (p) => vesta.bench.listPage(p, sig()),
        () => vesta.bench.list({ limit: 100 }, sig()),
      );
      ctx.print(cmd, page, (s) => {
        const rows = page.items.map((r) => [
          r.id,
          r.name,
          statusColour(s, r.status),
          r.model_id,
          `${r.progress.tasks_done}/${r.progress.tasks_total}`,
          r.created_at,
        ]);
        return `${renderTable(['id', 'name', 'status', 'model', 'done', 'created'], rows, s)}\n${pageFooter(page, s)}`;
      });
    }),
  );

  leaf(
    bench
      .command('get')
      .description('Show a Bench run with its status and progress')
      .argument('<id>', 'the run id'),
    ['vesta bench get bench_123', 'vesta bench get bench_123 --json | jq -r .status'],
  ).action(
    action(ctx, async (cmd, id: string) => {
      const run = await ctx.client(cmd).bench.get(id, sig());
      ctx.print(cmd, run, (s) => renderRun(run, s));
    }),
  );

  leaf(
    bench
      .command('cancel')
      .description('Cancel a run that is queued, generating or evaluating')
      .argument('<id>', 'the run id'),
    ['vesta bench cancel bench_123'],
  ).action(
    action(ctx, async (cmd, id: string) => {
      const run = await ctx.client(cmd).bench.cancel(id, sig());
      ctx.print(cmd, run, (s) => `${s.yellow('Cancelled.')}\n${renderRun(run, s)}`);
    }),
  );

  leaf(
    bench
      .command('delete')
      .description('Delete a finished run with its clips, scores and logs')
      .argument('<id>', 'the run id'),
    ['vesta bench delete bench_123'],
  ).action(
    action(ctx, async (cmd, id: string) => {
      await ctx.client(cmd).bench.delete(id, sig());
      ctx.print(cmd, { id, deleted: true }, (s) => `${s.green('Deleted')} ${id}`);
    }),
  );

  leaf(
    addPaging(
      bench
        .command('videos')
        .description("Show a run's clips and their per-dimension results")
        .argument('<id>', 'the run id'),
      'clips',
    ),
    ['vesta bench videos bench_123', 'vesta bench videos bench_123 --all --json'],
  ).action(
    action(ctx, async (cmd, id: string) => {
      const vesta = ctx.client(cmd);
      const page = await pageOrAll<BenchVideo>(
        cmd.opts<PageFlags>(),
        (p) => vesta.bench.videos(id, p, sig()),
        () => vesta.bench.allVideos(id, { limit: 100 }, sig()),
      );
      ctx.print(cmd, page, (s) => {
        const rows = page.items.map((v) => [
          v.seq,
          v.state,
          v.video_id ?? '',
          v.scores.map((x) => `${x.dimension}=${x.value.toFixed(4)}`).join(' '),
          v.prompt,
        ]);
        return `${renderTable(['seq', 'state', 'video', 'scores', 'prompt'], rows, s)}\n${pageFooter(page, s)}`;
      });
    }),
  );

  leaf(
    bench
      .command('scorecard')
      .description(
        "Show a run's scores with 95 % intervals (final once it has ended, else the clips scored so far)",
      )
      .argument('<id>', 'the run id'),
    ['vesta bench scorecard bench_123', 'vesta bench scorecard bench_123 --json | jq .aggregates'],
  ).action(
    action(ctx, async (cmd, id: string) => {
      const card = await ctx.client(cmd).bench.scorecard(id, sig());
      ctx.print(cmd, card, (s) => renderScorecard(card, s));
    }),
  );

  leaf(
    bench
      .command('csv')
      .description("Download a run's scorecard as CSV (to stdout, or to a file with -o)")
      .argument('<id>', 'the run id')
      .option('-o, --output <file>', 'write the CSV to this file'),
    ['vesta bench csv bench_123 -o scorecard.csv', 'vesta bench csv bench_123 > scorecard.csv'],
  ).action(
    action(ctx, async (cmd, id: string) => {
      const { output } = cmd.opts<{ output?: string }>();
      const csv = await ctx.client(cmd).bench.csv(id, sig());
      if (output) {
        await writeFile(output, csv);
        ctx.print(
          cmd,
          { id, file: output, bytes: Buffer.byteLength(csv) },
          (s) => `${s.green('Wrote')} ${output} (${Buffer.byteLength(csv)} bytes)`,
        );
      } else if (ctx.globals(cmd).json) {
        ctx.print(cmd, { id, csv }, () => '');
      } else {
        ctx.io.stdout.write(csv);
      }
    }),
  );

  leaf(
    addPaging(
      bench
        .command('logs')
        .description("Show a run's log lines, oldest first")
        .argument('<id>', 'the run id'),
      'lines',
    ),
    ['vesta bench logs bench_123', 'vesta bench logs bench_123 --all --json'],
  ).action(
    action(ctx, async (cmd, id: string) => {
      const vesta = ctx.client(cmd);
      const page = await pageOrAll<BenchLogLine>(
        cmd.opts<PageFlags>(),
        (p) => vesta.bench.logs(id, p, sig()),
        () => vesta.bench.allLogs(id, { limit: 1000 }, sig()),
      );
      ctx.print(cmd, page, (s) => {
        const colour = (l: BenchLogLine): string =>
          l.level === 'error' ? s.red(l.level) : l.level === 'warn' ? s.yellow(l.level) : s.dim(l.level);
        const lines = page.items.map((l) => `${s.dim(l.time)} ${colour(l)} ${s.cyan(l.source)} ${l.message}`);
        return [...lines, pageFooter(page, s)].join('\n');
      });
    }),
  );

  registerBenchCompareCommands(bench, ctx);
}
