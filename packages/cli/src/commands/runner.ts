/**
 * `vesta runner start`: turns a generator script (`--command`) or the built-in DEMO generator
 * (`--demo`) into a Vesta runner. It registers, claims tasks of the model, runs the generator per
 * task, ships its output lines as run logs, uploads the clip, and completes or fails the task.
 *
 * SIGTERM / SIGINT stop it gracefully: no new claims; in-flight tasks get `--grace` seconds to
 * finish, then are handed back (failed, retryable). A second signal hands them back at once.
 * Exit codes: 0 after SIGTERM, 130 after SIGINT, 1 when the service refuses the runner, 2 on usage.
 */
import os from 'node:os';
import { InvalidArgumentError, type Command } from 'commander';
import type { RunnerEvent, RunnerSummary } from '@vesta/sdk';
import { action, UsageError, type CliContext } from '../context.js';
import type { Style } from '../output/style.js';
import { group, leaf, list, positiveInt, seconds } from './common.js';
import { commandGenerator, demoGenerator } from './runner-exec.js';

/** The demo generator's model id (the server seeds it). */
export const DEMO_MODEL = 'vesta-demo';

/** How the command learns of SIGTERM/SIGINT (the real process by default; tests pass their own). */
export interface RunnerSignals {
  on(signal: 'SIGTERM' | 'SIGINT', handler: () => void): () => void;
}

export function processSignals(): RunnerSignals {
  return {
    on(signal, handler) {
      process.on(signal, handler);
      return () => void process.off(signal, handler);
    },
  };
}

function wholeNumber(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a whole number (0 or more)');
  return Number(value);
}

function claimWait(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 30) throw new InvalidArgumentError('must be 0–30 seconds');
  return n;
}

interface StartOptions {
  modelId?: string[];
  command?: string;
  demo?: boolean;
  name?: string;
  concurrency: number;
  retries: number;
  timeout: number;
  grace: number;
  claimWait: number;
  json?: boolean;
}

function describe(event: RunnerEvent, s: Style): string {
  switch (event.type) {
    case 'registered':
      return `${s.green('registered')} runner ${s.bold(event.runnerId)} (${event.name}) serving ${event.models.join(', ')}; waiting for tasks`;
    case 'claimed':
      return `${s.cyan('claimed')} ${event.taskId} of ${event.runId}: "${event.prompt}" seed ${event.seed} sample ${event.sampleIndex} (attempt ${event.attempt})`;
    case 'log':
      return s.dim(`  ${event.taskId} ${event.level === 'info' ? '' : `${event.level} `}${event.message}`);
    case 'uploaded':
      return `${s.cyan('uploaded')} ${event.taskId} as ${event.videoId}${event.bytes !== undefined ? ` (${event.bytes} bytes)` : ''}`;
    case 'completed':
      return `${s.green('completed')} ${event.taskId} → ${event.videoId} in ${(event.ms / 1000).toFixed(1)} s`;
    case 'failed':
      return `${s.red('failed')} ${event.taskId}: ${event.error}${event.retryable ? '' : ' (not retryable)'}`;
    case 'rejected':
      return `${s.red('rejected')} ${event.taskId} by the service: ${event.code}: ${event.detail}`;
    case 'cancelled':
      return `${s.yellow('cancelled')} ${event.taskId}: its run ${event.runId} was cancelled; generation stopped`;
    case 'lease_lost':
      return `${s.yellow('lease lost')} ${event.taskId}: the service gave it to another runner`;
    case 'handed_back':
      return `${s.yellow('handed back')} ${event.taskId} (the runner is stopping)`;
    case 'retrying':
      return s.yellow(`retrying ${event.operation} in ${Math.round(event.delayMs)} ms: ${event.error}`);
    case 'stopping':
      return s.yellow(
        `stopping: ${event.inFlight} task(s) in flight get ${event.graceMs / 1000} s to finish`,
      );
    case 'stopped':
      return `${s.bold('stopped')}: ${summaryText(event.summary)}`;
  }
}

function summaryText(x: RunnerSummary): string {
  return `${x.completed} completed, ${x.failed} failed, ${x.cancelled} cancelled, ${x.leaseLost} lease(s) lost, ${x.handedBack} handed back`;
}

/** Adds `vesta runner start` to `program`; returns the `runner` group (other runner commands join it). */
export function registerRunnerCommands(
  program: Command,
  ctx: CliContext,
  signals: RunnerSignals = processSignals(),
): Command {
  const runner = group(
    program.command('runner').description('Runners: generate the clips of Bench runs on this machine'),
    [
      "vesta runner start --model-id my-model --command 'python gen.py --prompt {prompt} --seed {seed} --out {output}'",
      'vesta runner start --demo',
    ],
  );

  const start = leaf(
    runner
      .command('start')
      .description('Register a runner and generate clips for Bench runs until stopped (SIGTERM/Ctrl-C)')
      .option('-m, --model-id <ids>', 'model id(s) this runner serves, comma-separated', list)
      .option(
        '-c, --command <cmd>',
        'shell command that writes one clip; placeholders {prompt} {seed} {output} {sample_index} {task_id} {run_id} (shell-quoted) and VESTA_* environment variables',
      )
      .option(
        '--demo',
        `use the built-in DEMO generator (procedural shapes, not a model) for model ${DEMO_MODEL}`,
      )
      .option('--name <name>', 'runner name shown in listings (default: host name and process id)')
      .option('--concurrency <k>', 'tasks generated at once', positiveInt, 1)
      .option('--retries <r>', 'extra runs of a failed command within the same claim', wholeNumber, 0)
      .option('--timeout <sec>', 'seconds one run of the command may take before it is killed', seconds, 600)
      .option('--grace <sec>', 'seconds in-flight tasks get to finish after SIGTERM/SIGINT', seconds, 30)
      .option(
        '--claim-wait <sec>',
        'seconds one claim long-polls for a task, 0–30 (a stop waits for the claim in flight)',
        claimWait,
        10,
      )
      .addHelpText(
        'after',
        `
Environment of the command: VESTA_PROMPT, VESTA_SEED, VESTA_OUTPUT, VESTA_SAMPLE_INDEX, VESTA_TASK_ID,
VESTA_RUN_ID, VESTA_MODEL_ID, VESTA_DIMENSIONS (comma-separated), VESTA_AUXILIARY (JSON). The API key
is not passed on. The command must write the clip to {output} / $VESTA_OUTPUT and exit 0.

Exit codes: 0 stopped by SIGTERM, 130 stopped by SIGINT, 1 refused by the service, 2 usage.`,
      ),
    [
      "vesta runner start --model-id my-model --command 'python gen.py --prompt {prompt} --seed {seed} --out {output}'",
      'vesta runner start --model-id my-model --command \'./gen.sh "$VESTA_PROMPT" > "$VESTA_OUTPUT"\' --concurrency 2 --timeout 300',
      'vesta runner start --demo --json',
    ],
  );
  const jsonOption = start.options.find((opt) => opt.long === '--json');
  if (jsonOption)
    jsonOption.description = 'print one JSON object per event on stdout (errors as JSON on stderr)';
  start.action(
    action(ctx, async (cmd) => {
      const o = cmd.opts<StartOptions>();
      if (Boolean(o.command) === Boolean(o.demo))
        throw new UsageError('usage', 'Pass exactly one of --command CMD or --demo.');
      if (o.command !== undefined && o.command.trim() === '')
        throw new UsageError('usage', '--command must not be empty.');
      let models = o.modelId ?? [];
      if (o.demo) {
        if (models.some((m) => m !== DEMO_MODEL))
          throw new UsageError(
            'usage',
            `--demo generates procedural demo clips and serves only the model ${DEMO_MODEL}; it cannot stand in for ${models.join(', ')}.`,
          );
        models = [DEMO_MODEL];
      }
      if (models.length === 0) throw new UsageError('usage', '--model-id is required with --command.');
      const json = ctx.globals(cmd).json;
      const vesta = ctx.client(cmd);
      const generate = o.demo
        ? await demoGenerator()
        : commandGenerator({
            command: o.command ?? '',
            timeoutSeconds: o.timeout,
            retries: o.retries,
            env: ctx.io.env,
          });
      const emit = (event: RunnerEvent): void => {
        if (json) ctx.io.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), ...event })}\n`);
        else ctx.io.stderr.write(`${describe(event, ctx.errStyle)}\n`);
      };
      const started = vesta.createRunner({
        name: o.name ?? `${os.hostname()}-${process.pid}`,
        models,
        concurrency: o.concurrency,
        claimWaitSeconds: o.claimWait,
        generate,
        onLog: emit,
      });
      let stoppedBy: 'SIGTERM' | 'SIGINT' | undefined;
      const onSignal = (sig: 'SIGTERM' | 'SIGINT'): void => {
        if (stoppedBy) {
          void started.stop({ graceMs: 0, abandonClaim: true }).catch(() => undefined);
          return;
        }
        stoppedBy = sig;
        if (!json)
          ctx.io.stderr.write(
            `${ctx.errStyle.yellow(`${sig}:`)} no new tasks; in-flight ones get ${o.grace} s (send it again to hand them back now)\n`,
          );
        void started.stop({ graceMs: o.grace * 1000 }).catch(() => undefined);
      };
      const off = [
        signals.on('SIGTERM', () => onSignal('SIGTERM')),
        signals.on('SIGINT', () => onSignal('SIGINT')),
      ];
      try {
        await started.done;
      } finally {
        for (const f of off) f();
      }
      ctx.exitCode = stoppedBy === 'SIGINT' ? 130 : 0;
    }),
  );
  return runner;
}
