/** `vesta dimensions list` and `vesta models list`. */
import type { Command } from 'commander';
import { action, type CliContext } from '../context.js';
import { renderTable } from '../output/table.js';
import { group, leaf } from './common.js';

export function registerDiscoveryCommands(program: Command, ctx: CliContext): void {
  const dimensions = group(
    program.command('dimensions').description("The evaluation dimensions (VBench's 16)"),
    ['vesta dimensions list'],
  );
  leaf(
    dimensions
      .command('list')
      .description('List every dimension with its category, default method and workflows'),
    ['vesta dimensions list', "vesta dimensions list --json | jq -r '.items[].id'"],
  ).action(
    action(ctx, async (cmd) => {
      const list = await ctx.client(cmd).dimensions.list({ signal: ctx.signal });
      ctx.print(cmd, list, (s) =>
        renderTable(
          ['id', 'category', 'default method', 'workflows', 'name'],
          list.items.map((d) => [
            d.id,
            d.category,
            d.default_method ?? s.yellow('unavailable'),
            d.workflows.join(','),
            d.name,
          ]),
          s,
        ),
      );
    }),
  );

  const models = group(program.command('models').description('The models Bench runs can evaluate'), [
    'vesta models list',
  ]);
  leaf(models.command('list').description('List every model with its runners'), [
    'vesta models list',
    'vesta models list --json',
  ]).action(
    action(ctx, async (cmd) => {
      const list = await ctx.client(cmd).models.list({ signal: ctx.signal });
      ctx.print(cmd, list, (s) =>
        renderTable(
          ['id', 'online', 'runners', 'name'],
          list.items.map((m) => [
            m.id,
            m.online ? s.green('yes') : s.dim('no'),
            m.runners.map((r) => r.id).join(','),
            m.name,
          ]),
          s,
        ),
      );
    }),
  );
}
