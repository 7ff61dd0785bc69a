/** `vesta score …` and `vesta rank …`: sessions, uploads (with progress and --wait), leaderboard. */
import { basename } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import type {
  RankLeaderboard,
  RankSession,
  ScoreSession,
  UploadOptions,
  UploadResult,
  VideoSummary,
} from '@vesta/sdk';
import { action, type CliContext } from '../context.js';
import { UploadProgress } from '../output/progress.js';
import type { Style } from '../output/style.js';
import { renderFields, renderTable } from '../output/table.js';
import { group, leaf, seconds } from './common.js';

type Kind = 'score' | 'rank';

function stateColour(style: Style, state: string): string {
  if (state === 'scored') return style.green(state);
  if (state === 'failed') return style.red(state);
  return style.cyan(state);
}

export function renderSession(session: ScoreSession | RankSession, style: Style): string {
  const head: Record<string, unknown> = { runId: session.runId, createdAt: session.createdAt };
  if (session.kind === 'rank') {
    head.prompt = session.prompt;
    head.promptLocked = session.promptLocked;
  }
  head.videos = session.videos.length;
  const rows = session.videos.map((v) => [
    v.videoId,
    v.fileName,
    stateColour(style, v.state),
    v.scores.length,
    v.error?.code ?? '',
  ]);
  return `${renderFields(head, style)}\n\n${renderTable(['video', 'file', 'state', 'scores', 'error'], rows, style)}`;
}

export function renderVideo(video: VideoSummary, style: Style): string {
  const head = renderFields(
    {
      videoId: video.videoId,
      fileName: video.fileName,
      state: stateColour(style, video.state),
      prompt: video.prompt,
      error: video.error ? `${video.error.code}: ${video.error.detail}` : null,
    },
    style,
  );
  const notice = video.promptNotice ? `\n${style.yellow(`Note: ${video.promptNotice.detail}`)}` : '';
  if (video.scores.length === 0 && video.failures.length === 0) return head + notice;
  const rows = [
    ...video.scores.map((s) => [s.dimension, s.value, s.method, `${s.frames.count} frames`]),
    ...video.failures.map((f) => [f.dimension, style.red('failed'), f.code, f.detail]),
  ];
  return `${head}${notice}\n\n${renderTable(['dimension', 'value', 'method', 'notes'], rows, style)}`;
}

function renderLeaderboard(board: RankLeaderboard, style: Style): string {
  const head = renderFields(
    { runId: board.runId, prompt: board.prompt, formula: board.formula, intervals: board.uncertainty },
    style,
  );
  const rows = board.entries.map((e) => [
    e.rank ?? '-',
    e.videoId,
    e.fileName,
    e.overall,
    stateColour(style, e.state),
  ]);
  const notice = board.promptNotice ? `\n${style.yellow(`Note: ${board.promptNotice.detail}`)}` : '';
  return `${head}${notice}\n\n${renderTable(['rank', 'video', 'file', 'overall', 'state'], rows, style)}`;
}

function parseAuxiliary(value: string): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new InvalidArgumentError('must be a JSON object, e.g. \'{"object":"dog","color":"red"}\'');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new InvalidArgumentError('must be a JSON object');
  return parsed as Record<string, string>;
}

interface UploadFlags {
  prompt?: string;
  wait?: boolean;
  timeout?: number;
  contentType?: string;
  fileName?: string;
  auxiliary?: Record<string, string>;
}

function registerSession(program: Command, ctx: CliContext, kind: Kind): Command {
  const title = kind === 'score' ? 'Score' : 'Rank';
  const session = group(
    program
      .command(kind)
      .description(
        kind === 'score'
          ? 'Your Score session: upload a clip and read its scores on every dimension'
          : 'Your Rank session: upload candidate clips for one prompt and read the leaderboard',
      ),
    kind === 'score'
      ? [
          'vesta score upload clip.mp4 --prompt "a cat surfing a wave" --wait',
          'vesta score get --json',
          'vesta score reset',
        ]
      : [
          'vesta rank upload a.mp4 --prompt "a red car at night" --wait',
          'vesta rank upload b.mp4 --wait',
          'vesta rank current',
        ],
  );

  leaf(session.command('get').description(`Show your ${title} session (created if absent)`), [
    `vesta ${kind} get`,
    `vesta ${kind} get --json`,
  ]).action(
    action(ctx, async (cmd) => {
      const vesta = ctx.client(cmd);
      const session =
        kind === 'score'
          ? await vesta.score.getOrCreate({ signal: ctx.signal })
          : await vesta.rank.getOrCreate({ signal: ctx.signal });
      ctx.print(cmd, session, (s) => renderSession(session, s));
    }),
  );

  leaf(
    session.command('reset').description(`Retire your ${title} session and start an empty one (new run id)`),
    [`vesta ${kind} reset`],
  ).action(
    action(ctx, async (cmd) => {
      const vesta = ctx.client(cmd);
      const session =
        kind === 'score'
          ? await vesta.score.reset({ signal: ctx.signal })
          : await vesta.rank.reset({ signal: ctx.signal });
      ctx.print(cmd, session, (s) => `${s.green('Reset.')} New run id ${session.runId}`);
    }),
  );

  const what = kind === 'score' ? 'clip' : 'candidate';
  leaf(
    session
      .command('remove')
      .description(
        kind === 'score'
          ? 'Remove one clip from your Score session, with its scores and stored bytes'
          : 'Remove one candidate from your Rank session; the leaderboard ranks the others again',
      )
      .argument('<video-id>', `the ${what}'s video id (see \`vesta ${kind} get\`)`)
      .option('--run-id <id>', `a ${title} session run id (default: your current session)`),
    [`vesta ${kind} remove 0f6e2c1a-…`, `vesta ${kind} remove VIDEO_ID --json`],
  ).action(
    action(ctx, async (cmd, videoId: string) => {
      const { runId } = cmd.opts<{ runId?: string }>();
      const vesta = ctx.client(cmd);
      const opts = { signal: ctx.signal, ...(runId === undefined ? {} : { runId }) };
      if (kind === 'score') await vesta.score.removeVideo(videoId, opts);
      else await vesta.rank.removeVideo(videoId, opts);
      ctx.print(cmd, { videoId, removed: true }, (s) => `${s.green('Removed')} ${what} ${videoId}`);
    }),
  );

  const upload = session
    .command('upload')
    .description(
      kind === 'score'
        ? 'Upload a clip to your Score session (upload-url, PUT, confirm-upload); --wait waits for its scores'
        : 'Upload a candidate clip to your Rank session; the first upload locks the prompt',
    )
    .argument('<file>', 'path of the clip (mp4, webm, mov, mkv, avi, mpeg, gif)');
  if (kind === 'score')
    upload.requiredOption('-p, --prompt <text>', 'the text prompt the clip was made from');
  else
    upload.option(
      '-p, --prompt <text>',
      'the prompt (required for the first upload; must match the locked one afterwards)',
    );
  upload
    .option('-w, --wait', 'wait until the clip is scored (or failed), showing its state')
    .option('--timeout <seconds>', 'give up waiting after this many seconds (default 900)', seconds)
    .option('--content-type <type>', 'media type (default: from the file extension)')
    .option('--file-name <name>', 'file name sent to the server (default: the base name of FILE)')
    .option(
      '--auxiliary <json>',
      'auxiliary prompt info for semantic dimensions, as a JSON object',
      parseAuxiliary,
    );
  leaf(upload, [
    `vesta ${kind} upload clip.mp4 --prompt "a cat surfing a wave" --wait`,
    `vesta ${kind} upload clip.mp4 --prompt "a red car" --auxiliary '{"object":"car","color":"red"}' --json`,
  ]).action(
    action(ctx, async (cmd, file: string) => {
      const flags = cmd.opts<UploadFlags>();
      const vesta = ctx.client(cmd);
      const json = ctx.globals(cmd).json;
      const progress = json ? undefined : new UploadProgress(ctx.io.stderr, ctx.errStyle, basename(file));
      const opts: UploadOptions = {
        prompt: flags.prompt,
        wait: flags.wait === true,
        waitTimeoutMs: flags.timeout !== undefined ? flags.timeout * 1000 : undefined,
        contentType: flags.contentType,
        fileName: flags.fileName,
        auxiliary: flags.auxiliary,
        onProgress: progress?.onProgress,
        signal: ctx.signal,
      };
      let result: UploadResult;
      try {
        result =
          kind === 'score'
            ? await vesta.score.upload(file, { ...opts, prompt: flags.prompt ?? '' })
            : await vesta.rank.upload(file, opts);
      } finally {
        progress?.endBar();
      }
      ctx.print(cmd, { ...result, video: result.video ?? null }, (s) =>
        result.video
          ? renderVideo(result.video, s)
          : `${s.green('Uploaded.')} video ${result.videoId} is ${result.state} (run ${result.runId})`,
      );
    }),
  );
  return session;
}

export function registerScoreCommands(program: Command, ctx: CliContext): void {
  registerSession(program, ctx, 'score');
}

export function registerRankCommands(program: Command, ctx: CliContext): void {
  const rank = registerSession(program, ctx, 'rank');
  leaf(
    rank
      .command('current')
      .description('Show the ranked leaderboard of your current Rank session (or of --run-id)')
      .option('--run-id <id>', 'a Rank session run id (default: your current session)'),
    ['vesta rank current', 'vesta rank current --json'],
  ).action(
    action(ctx, async (cmd) => {
      const { runId } = cmd.opts<{ runId?: string }>();
      const board = await ctx.client(cmd).rank.getRanked(runId, { signal: ctx.signal });
      ctx.print(cmd, board, (s) => renderLeaderboard(board, s));
    }),
  );
}
