/** `vesta videos download ID`: a stored clip's bytes (Score, Rank or Bench), to a file or stdout. */
import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { action, UsageError, type CliContext } from '../context.js';
import { group, leaf } from './common.js';

export function registerVideoCommands(program: Command, ctx: CliContext): void {
  const videos = group(
    program.command('videos').description('Stored clips of your Score, Rank and Bench runs'),
    ['vesta videos download vid_123 -o clip.mp4'],
  );
  leaf(
    videos
      .command('download')
      .description(
        "Download a stored clip's bytes (to a file with -o, or to stdout when it is not a terminal)",
      )
      .argument('<videoId>', 'the video id (from a session, a leaderboard or `vesta bench videos`)')
      .option('-o, --output <file>', 'write the clip to this file'),
    ['vesta videos download vid_123 -o clip.mp4', 'vesta videos download vid_123 > clip.mp4'],
  ).action(
    action(ctx, async (cmd, videoId: string) => {
      const { output } = cmd.opts<{ output?: string }>();
      const stdout = ctx.io.stdout as NodeJS.WritableStream & { isTTY?: boolean };
      if (!output && (stdout.isTTY || ctx.globals(cmd).json))
        throw new UsageError(
          'output_required',
          'Give -o FILE: a clip is binary, so it is not written to a terminal or as JSON.',
        );
      const clip = await ctx.client(cmd).videos.content(videoId, { signal: ctx.signal });
      if (output) {
        await writeFile(output, clip.bytes);
        ctx.print(
          cmd,
          { videoId, file: output, bytes: clip.bytes.byteLength, contentType: clip.contentType },
          (s) => `${s.green('Wrote')} ${output} (${clip.bytes.byteLength} bytes, ${clip.contentType})`,
        );
      } else {
        stdout.write(clip.bytes);
      }
    }),
  );
}
