/** `vesta dimensions prompts ID`: the Bench prompt suite of one dimension. */
import type { Command } from 'commander';
import { action, type CliContext } from '../context.js';
import { renderTable } from '../output/table.js';
import { leaf } from './common.js';

/** Adds `prompts` to the `dimensions` group (created by commands/discovery.ts). */
export function registerDimensionPromptsCommand(program: Command, ctx: CliContext): void {
  const dimensions = program.commands.find((c) => c.name() === 'dimensions');
  if (!dimensions) throw new Error('the dimensions command group must be registered first');
  leaf(
    dimensions
      .command('prompts')
      .description("List the prompts Bench runs generate clips from for one dimension (Vesta's suite)")
      .argument('<id>', 'a dimension id (vesta dimensions list)'),
    ['vesta dimensions prompts color', "vesta dimensions prompts scene --json | jq -r '.prompts[].text'"],
  ).action(
    action(ctx, async (cmd, id: string) => {
      const p = await ctx.client(cmd).dimensions.prompts(id, { signal: ctx.signal });
      ctx.print(
        cmd,
        p,
        (s) =>
          `${s.dim(`suite ${p.suiteVersion}, clip group ${p.clipGroup}, ${p.prompts.length} prompts`)}\n` +
          renderTable(
            ['id', 'prompt', 'auxiliary'],
            p.prompts.map((x) => [
              x.id,
              x.text,
              Object.entries(x.auxiliary)
                .map(([k, v]) => `${k}=${v}`)
                .join('; '),
            ]),
            s,
          ),
      );
    }),
  );
}
