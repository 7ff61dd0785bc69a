/**
 * `vesta runner list|get|rm`: the caller's registered runners. They join the `runner` group that
 * `vesta runner start` creates (commands/runner.ts).
 */
import type { Command } from 'commander';
import { action, type CliContext } from '../context.js';
import { renderFields, renderTable } from '../output/table.js';
import { leaf } from './common.js';

export function registerRunnerAdminCommands(runner: Command, ctx: CliContext): void {
  const sig = (): { signal: AbortSignal } => ({ signal: ctx.signal });

  leaf(
    runner
      .command('list')
      .description('List your registered runners with their models and whether they are online'),
    ['vesta runner list', "vesta runner list --json | jq -r '.items[] | select(.online) | .id'"],
  ).action(
    action(ctx, async (cmd) => {
      const list = await ctx.client(cmd).runners.list(sig());
      ctx.print(cmd, list, (s) =>
        renderTable(
          ['id', 'name', 'online', 'models', 'last seen'],
          list.items.map((r) => [
            r.id,
            r.name,
            r.online ? s.green('yes') : s.dim('no'),
            r.models.join(','),
            r.lastSeenAt ?? '',
          ]),
          s,
        ),
      );
    }),
  );

  leaf(runner.command('get').description('Show one of your runners').argument('<id>', 'the runner id'), [
    'vesta runner get runner_123',
    'vesta runner get runner_123 --json | jq .online',
  ]).action(
    action(ctx, async (cmd, id: string) => {
      const r = await ctx.client(cmd).runners.get(id, sig());
      ctx.print(cmd, r, (s) => renderFields({ ...r, models: r.models.join(', ') }, s));
    }),
  );

  leaf(
    runner
      .command('rm')
      .description('Deregister a runner; the tasks it holds go back to the queue')
      .argument('<id>', 'the runner id'),
    ['vesta runner rm runner_123'],
  ).action(
    action(ctx, async (cmd, id: string) => {
      await ctx.client(cmd).runners.deregister(id, sig());
      ctx.print(cmd, { id, deregistered: true }, (s) => `${s.green('Deregistered')} ${id}`);
    }),
  );
}
