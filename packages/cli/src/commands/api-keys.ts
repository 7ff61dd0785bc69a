/** `vesta api-keys create|revoke`: keys are managed only in the web dashboard, so these point there. */
import type { Command } from 'commander';
import { EXIT, beforeDashboard, dashboardKeysUrl, type CliContext } from '../context.js';
import { group, leaf } from './common.js';

export function registerApiKeyCommands(program: Command, ctx: CliContext): void {
  const keys = group(
    program.command('api-keys').description('API keys are created and revoked only in the web dashboard'),
    ['vesta api-keys create   # prints where to create one: <base-url>/dashboard/api-keys'],
  );
  for (const verb of ['create', 'revoke'] as const) {
    leaf(
      keys
        .command(verb)
        .description(`Not available from the CLI: ${verb} keys in the dashboard`)
        .argument('[id]', 'ignored'),
      [`vesta api-keys ${verb}`],
    ).action((_id: unknown, _opts: unknown, cmd: Command) => {
      const url = dashboardKeysUrl(ctx.globals(cmd).baseUrl);
      const detail = `API keys are ${verb === 'create' ? 'created' : 'revoked'} only in the web dashboard: open ${url} (${beforeDashboard(verb)})`;
      ctx.exitCode = EXIT.usage;
      if (ctx.globals(cmd).json)
        ctx.io.stderr.write(`${JSON.stringify({ error: { code: 'dashboard_only', detail, url } })}\n`);
      else ctx.io.stderr.write(`${ctx.errStyle.red('error')} ${detail}\n`);
    });
  }
}
