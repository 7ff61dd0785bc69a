/**
 * `vesta bench compare BASE CANDIDATE…` (the regression gate of a training pipeline) and
 * `vesta bench baseline get|set|clear` (a model's baseline run).
 *
 * Exit codes of `bench compare` (docs/cli.md): 0 — no gated dimension is worse than the baseline by
 * more than DELTA with confidence (or no gate was asked for); 1 — a regression (the dimensions, their
 * deltas and intervals on stdout); 2 — no verdict: bad usage, the runs are not comparable, or the
 * service refused or could not be reached (so a CI job never reads a broken comparison as a pass or
 * as a regression).
 */
import type { Command } from 'commander';
import type { BenchComparison, ModelBaseline } from '@vesta/sdk';
import { EXIT, UsageError, action, type CliContext } from '../context.js';
import type { Style } from '../output/style.js';
import { renderFields, renderTable } from '../output/table.js';
import { group, leaf, list, nonNegativeNumber } from './common.js';

const signed = (x: number): string => `${x >= 0 ? '+' : ''}${x.toFixed(4)}`;
const interval = (low: number | null, high: number | null): string =>
  low === null || high === null ? '—' : `[${signed(low)}, ${signed(high)}]`;
const p = (x: number): string => (x < 0.0001 ? '<0.0001' : x.toFixed(4));

export function renderComparison(cmp: BenchComparison, style: Style): string {
  const out: string[] = [];
  const runs = new Map(cmp.runs.map((r) => [r.id, r]));
  out.push(
    renderTable(
      ['run', 'name', 'model', 'state'],
      cmp.runs.map((r, i) => [`${r.id}${i === 0 ? ' (baseline)' : ''}`, r.name, r.model_id, r.label]),
      style,
    ),
  );
  for (const c of cmp.comparisons) {
    out.push(
      '',
      style.bold(
        `${runs.get(c.candidate_id)?.name ?? c.candidate_id} − ${runs.get(c.baseline_id)?.name ?? c.baseline_id}`,
      ) + style.dim(` (${c.mode}: ${c.mode_reason})`),
    );
    out.push(
      renderTable(
        [
          'dimension',
          'baseline',
          'candidate',
          'delta',
          '95% interval',
          'p',
          cmp.runs.length > 2 ? 'p (holm)' : '',
          'n',
        ],
        c.rows.map((r) => {
          const name = r.kind === 'aggregate' ? `${r.name}${r.partial ? ' (partial)' : ''}` : r.name;
          // Marked in words too, not only in colour: a CI log or a pipe has no colours.
          const delta = r.significant
            ? r.delta < 0 === r.higher_is_better
              ? style.red(`${signed(r.delta)} *`)
              : style.green(`${signed(r.delta)} *`)
            : signed(r.delta);
          return [
            name,
            r.baseline.toFixed(4),
            r.candidate.toFixed(4),
            delta,
            interval(r.ci95_low, r.ci95_high),
            p(r.p_value),
            cmp.runs.length > 2 ? p(r.p_adjusted) : '',
            r.pairs ?? r.candidate_clips,
          ];
        }),
        style,
      ),
    );
    out.push(
      style.dim(
        c.rows.some((r) => r.significant)
          ? '* a real difference: its 95 % interval leaves out 0 (and its adjusted p is below 0.05)'
          : 'No difference is clear at 95 %: every interval crosses 0 (or the adjusted p is 0.05 or more).',
      ),
    );
    const worst = c.prompts.slice(0, 5).filter((x) => x.delta < 0);
    if (worst.length > 0)
      out.push(
        style.dim('largest drops by prompt (leaderboard scale, as Total weighs the dimensions):'),
        ...worst.map((x) => `  ${signed(x.delta)}  ${x.prompt_id}  ${style.dim(x.prompt)}`),
      );
  }
  if (cmp.not_comparable.length > 0)
    out.push(
      '',
      style.yellow('not comparable:'),
      ...cmp.not_comparable.map((n) => `  ${n.dimension}: ${n.reason}`),
    );
  if (cmp.runs.length > 2) out.push('', style.dim(cmp.correction.statement));
  if (cmp.gate) {
    const g = cmp.gate;
    const colour = g.verdict === 'pass' ? style.green : g.verdict === 'regression' ? style.red : style.yellow;
    out.push('', colour(g.statement));
    for (const r of g.rows.filter((x) => x.regressed))
      out.push(
        `  ${r.name}: delta ${signed(r.delta)}, 95% interval ${interval(r.ci95_low, r.ci95_high)}, p ${p(r.p_adjusted)} (Holm)`,
      );
  }
  return out.join('\n');
}

function renderBaseline(b: ModelBaseline, style: Style): string {
  return renderFields({ model_id: b.model_id, run_id: b.run_id ?? '(none)', set_at: b.set_at }, style);
}

export function registerBenchCompareCommands(bench: Command, ctx: CliContext): void {
  const sig = (): { signal: AbortSignal } => ({ signal: ctx.signal });

  leaf(
    bench
      .command('compare')
      .description(
        'Compare runs with the first (the baseline): deltas with 95 % intervals and p-values; with --fail-on-regression, exit 1 on a regression',
      )
      .argument('<base>', 'the baseline run id')
      .argument('<candidates...>', 'the run id(s) to compare with it (one with --fail-on-regression)')
      .option(
        '--fail-on-regression <delta>',
        'exit 1 when a dimension is worse than the baseline by more than DELTA with 97.5 % confidence (Holm over the dimensions)',
        nonNegativeNumber,
      )
      .option(
        '-d, --dimensions <ids>',
        'compare (and gate) only these dimensions, comma-separated or repeated; Quality, Semantic, Total may be gated too',
        list,
      ),
    [
      'vesta bench compare bench_base bench_new',
      'vesta bench compare bench_base bench_new --fail-on-regression 0.01',
      'vesta bench compare bench_base bench_new --fail-on-regression 0 --dimensions subject_consistency,Total --json',
    ],
  ).action(
    action(ctx, async (cmd, base: string, candidates: string[]) => {
      const o = cmd.opts<{ failOnRegression?: number; dimensions?: string[] }>();
      try {
        if (o.failOnRegression !== undefined && candidates.length !== 1)
          throw new UsageError(
            'usage',
            '--fail-on-regression compares exactly one candidate with the baseline',
          );
        const cmp = await ctx
          .client(cmd)
          .bench.compare(
            [base, ...candidates],
            { failOnRegression: o.failOnRegression, dimensions: o.dimensions },
            sig(),
          );
        ctx.print(cmd, cmp, (s) => renderComparison(cmp, s));
        if (!cmp.comparable || cmp.gate?.verdict === 'not_comparable') ctx.exitCode = EXIT.usage;
        else if (cmp.gate?.verdict === 'regression') ctx.exitCode = EXIT.failure;
      } catch (err) {
        ctx.fail(cmd, err);
        // No verdict: never 1, which a pipeline reads as "the model regressed".
        if (ctx.exitCode !== EXIT.interrupted) ctx.exitCode = EXIT.usage;
      }
    }),
  );

  const baseline = group(
    bench.command('baseline').description("A model's baseline run: what new runs of it are compared with"),
    [
      'vesta bench baseline set my-model bench_123',
      'vesta bench baseline get my-model --json | jq -r .run_id',
    ],
  );
  leaf(
    baseline.command('get').description("Show a model's baseline run").argument('<model>', 'the model id'),
    ['vesta bench baseline get my-model'],
  ).action(
    action(ctx, async (cmd, model: string) => {
      const b = await ctx.client(cmd).models.baseline(model, sig());
      ctx.print(cmd, b, (s) => renderBaseline(b, s));
    }),
  );
  leaf(
    baseline
      .command('set')
      .description('Make a completed run of the model its baseline')
      .argument('<model>', 'the model id')
      .argument('<run>', 'a completed run of that model'),
    ['vesta bench baseline set my-model bench_123'],
  ).action(
    action(ctx, async (cmd, model: string, run: string) => {
      const b = await ctx.client(cmd).models.setBaseline(model, run, sig());
      ctx.print(cmd, b, (s) => `${s.green('Baseline set.')}\n${renderBaseline(b, s)}`);
    }),
  );
  leaf(
    baseline.command('clear').description("Clear a model's baseline run").argument('<model>', 'the model id'),
    ['vesta bench baseline clear my-model'],
  ).action(
    action(ctx, async (cmd, model: string) => {
      await ctx.client(cmd).models.clearBaseline(model, sig());
      ctx.print(
        cmd,
        { model_id: model, cleared: true },
        (s) => `${s.green('Cleared')} the baseline of ${model}`,
      );
    }),
  );
}
