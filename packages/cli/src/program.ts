/** Builds the `vesta` command tree and runs it with a given process environment. */
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { CliContext, EXIT, type CliIo } from './context.js';
import { registerApiKeyCommands } from './commands/api-keys.js';
import { registerBenchCommands } from './commands/bench.js';
import { registerDiscoveryCommands } from './commands/discovery.js';
import { registerModelsCommand } from './commands/models.js';
import { registerRankCommands, registerScoreCommands } from './commands/sessions.js';
import { registerRunnerCommands } from './commands/runner.js';
import { registerRunnerAdminCommands } from './commands/runners.js';
import { registerDimensionPromptsCommand } from './commands/prompts.js';
import { registerVideoCommands } from './commands/videos.js';
import { registerJudgeCommands } from './commands/judge.js';

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version?: string;
  };
  return pkg.version ?? '0.0.0';
}

const ROOT_HELP = `
Environment:
  VESTA_API_KEY    the API key (another variable: --api-key-env NAME); never printed
  VESTA_BASE_URL   the service address (default http://localhost:8080)
  NO_COLOR         set to disable colours (they are off when output is not a terminal)

Exit codes:
  0    success
  1    the service answered with an error, could not be reached, or scoring failed
  2    usage: bad arguments, no API key, unreadable file
  78   serve / admin: invalid server configuration
  130  interrupted (Ctrl-C); in-flight uploads and waits are aborted

Examples:
  $ vesta serve                                            # the service, on http://localhost:8080
  $ export VESTA_API_KEY=$(vesta admin create-key --user alice)
  $ vesta dimensions list
  $ vesta score upload clip.mp4 --prompt "a cat surfing a wave" --wait
  $ vesta rank upload a.mp4 --prompt "a red car at night" && vesta rank upload b.mp4 --wait
  $ vesta rank current --json
  $ vesta bench create --name nightly --dimensions subject_consistency,aesthetic_quality --model-id my-model --runner-id gpu-1
  $ vesta bench csv bench_123 -o scorecard.csv
`;

/** The client commands: they need only the SDK. */
export const CLIENT_COMMANDS = [
  'score',
  'rank',
  'bench',
  'dimensions',
  'models',
  'api-keys',
  'runner',
] as const;
/** Global options that take a value (skipped when looking for the command word). */
const VALUE_OPTIONS = new Set(['--base-url', '--api-key-env']);

/** The first command word of `argv`, if any. */
export function commandWord(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (VALUE_OPTIONS.has(a)) i++;
    else if (!a.startsWith('-')) return a;
  }
  return undefined;
}

/**
 * The command tree, bound to `ctx`. Error and help output go through `ctx.io`; commander never
 * exits the process (exitOverride), so `runCli` decides the exit code.
 *
 * The operator commands (`serve`, `admin`, `eval`) load the server and the engine, which takes
 * about a second; they are loaded only when the command line is not a client command, so that
 * `vesta score get` starts as fast as the SDK does.
 */
export async function buildProgram(ctx: CliContext, argv: readonly string[] = []): Promise<Command> {
  const json = argv.includes('--json');
  const program = new Command('vesta');
  program
    .description('Vesta: score, rank and benchmark text-to-video clips (client of the Vesta API)')
    .version(packageVersion(), '-V, --version', 'print the version')
    .option('--base-url <url>', 'service address (env VESTA_BASE_URL, default http://localhost:8080)')
    .option('--api-key-env <name>', 'environment variable that holds the API key (default VESTA_API_KEY)')
    .exitOverride()
    .configureHelp({ showGlobalOptions: true })
    .configureOutput({
      writeOut: (s) => void ctx.io.stdout.write(s),
      writeErr: (s) => void ctx.io.stderr.write(s),
      outputError: (s, write) =>
        write(
          json
            ? `${JSON.stringify({ error: { code: 'usage', detail: s.replace(/^error: /, '').trim() } })}\n`
            : s,
        ),
    })
    .showSuggestionAfterError()
    .addHelpText('after', ROOT_HELP);

  registerScoreCommands(program, ctx);
  registerRankCommands(program, ctx);
  registerBenchCommands(program, ctx);
  registerVideoCommands(program, ctx);
  registerDiscoveryCommands(program, ctx);
  registerDimensionPromptsCommand(program, ctx);
  registerModelsCommand(program, ctx);
  registerApiKeyCommands(program, ctx);
  registerJudgeCommands(program, ctx);
  registerRunnerAdminCommands(registerRunnerCommands(program, ctx), ctx);
  if (!(CLIENT_COMMANDS as readonly string[]).includes(commandWord(argv) ?? '')) {
    // Commands that run on the server's host (no API key, no HTTP client).
    const [{ registerServeCommand }, { registerAdminCommands }, { registerEvalCommand }] = await Promise.all([
      import('./commands/serve.js'),
      import('./commands/admin.js'),
      import('./commands/eval.js'),
    ]);
    registerServeCommand(program, ctx);
    registerAdminCommands(program, ctx);
    registerEvalCommand(program, ctx);
  }
  return program;
}

/** Runs the CLI and resolves with its exit code (see docs/cli.md). */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const ctx = new CliContext(io);
  const program = await buildProgram(ctx, argv);
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    throw err;
  }
  return ctx.exitCode;
}
