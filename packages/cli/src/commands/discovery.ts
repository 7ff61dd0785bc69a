/** `vesta dimensions list` and `vesta bench models` (the generators of `GET /api/v1/models`). */
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
            d.defaultMethod ?? s.yellow('unavailable'),
            d.workflows.join(','),
            d.name,
          ]),
          s,
        ),
      );
    }),
  );

  // The video generators Bench runs evaluate. `vesta models` is the local model store (weights of
  // the model-backed dimensions), so the API's model listing lives under `bench`.
  const bench = program.commands.find((c) => c.name() === 'bench') ?? program.command('bench');
  leaf(
    bench
      .command('models')
      .description('List the video generators (models) Bench runs can evaluate, with their runners'),
    ['vesta bench models', 'vesta bench models --json'],
  ).action(
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
