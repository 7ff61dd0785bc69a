/**
 * `vesta judge …` (issue #23): blind pairwise judging campaigns — create one from Bench runs or a
 * Rank session, follow it, add and remove judges, close or reveal it, export its votes; and, as a
 * judge, take the next pair and vote (the dashboard's judging page is the comfortable way).
 */
import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import type { JudgingAnswer, JudgingCampaign } from '@vesta/sdk';
import { action, type CliContext } from '../context.js';
import type { Style } from '../output/style.js';
import { renderFields, renderTable } from '../output/table.js';
import { group, leaf, list, positiveInt } from './common.js';

const QUESTIONS = ['overall', 'prompt_fit', 'motion', 'visual_quality', 'custom'] as const;
type QuestionKind = (typeof QUESTIONS)[number];
const ANSWERS = ['left', 'right', 'tie', 'both_bad', 'skip'] as const;

function questionKind(value: string): QuestionKind {
  if (!(QUESTIONS as readonly string[]).includes(value))
    throw new InvalidArgumentError(`must be one of ${QUESTIONS.join(', ')}`);
  return value as QuestionKind;
}

function renderCampaign(c: JudgingCampaign, style: Style): string {
  const p = c.progress;
  return renderFields(
    {
      id: c.id,
      name: c.name,
      role: c.role,
      status: c.status === 'open' ? style.green(c.status) : style.yellow(c.status),
      question: c.question.text,
      votes_per_pair: c.votesPerPair,
      progress: `${p.votes} votes · ${p.pairsComplete}/${p.pairs} pairs complete · ${p.judges} judges · your votes ${p.yourVotes}`,
      clips: `${p.clips}${p.clipsDeleted > 0 ? ` (${p.clipsDeleted} deleted)` : ''}`,
      items: c.items ? c.items.map((i) => `${i.label} (${i.id})`) : '(hidden until closed or revealed)',
      created_at: c.createdAt,
      closed_at: c.closedAt,
      revealed_at: c.revealedAt,
    },
    style,
  );
}

export function registerJudgeCommands(program: Command, ctx: CliContext): void {
  const judge = group(
    program.command('judge').description('Judging campaigns: blind pairwise votes on your clips'),
    [
      'vesta judge create --name "v2 vs v3" --bench-runs bench_a,bench_b',
      'vesta judge add-judge CAMPAIGN --email ana@example.com',
      'vesta judge status CAMPAIGN',
      'vesta judge export CAMPAIGN --format jsonl -o votes.jsonl',
    ],
  );
  const sig = (): { signal: AbortSignal } => ({ signal: ctx.signal });

  leaf(
    judge
      .command('create')
      .description('Create a campaign from two or more Bench runs or from a Rank session')
      .requiredOption('-n, --name <name>', 'a name (the judges see it)')
      .option('--bench-runs <ids>', 'two or more Bench run ids of one prompt suite, comma-separated', list)
      .option('--rank-session <id>', "a Rank session's id: its candidates are paired")
      .option('--question <kind>', `the question: ${QUESTIONS.join(', ')} (default overall)`, questionKind)
      .option('--question-text <text>', "the question's words (required with --question custom)")
      .option('--votes-per-pair <n>', 'votes each pair should get (default 3)', positiveInt),
    [
      'vesta judge create --name "v2 vs v3" --bench-runs bench_a,bench_b --question motion',
      'vesta judge create -n candidates --rank-session rank_123 --json',
    ],
  ).action(
    action(ctx, async (cmd) => {
      const o = cmd.opts<{
        name: string;
        benchRuns?: string[];
        rankSession?: string;
        question?: QuestionKind;
        questionText?: string;
        votesPerPair?: number;
      }>();
      const c = await ctx.client(cmd).judging.create(
        {
          name: o.name,
          ...(o.benchRuns ? { benchRunIds: o.benchRuns } : {}),
          ...(o.rankSession ? { rankSessionId: o.rankSession } : {}),
          ...(o.question || o.questionText
            ? {
                question: {
                  kind: o.question ?? 'overall',
                  ...(o.questionText ? { text: o.questionText } : {}),
                },
              }
            : {}),
          ...(o.votesPerPair ? { votesPerPair: o.votesPerPair } : {}),
        },
        sig(),
      );
      ctx.print(cmd, c, (s) => `${s.green('Created.')}\n${renderCampaign(c, s)}`);
    }),
  );

  leaf(judge.command('list').description('The campaigns you own or judge, newest first'), [
    'vesta judge list',
  ]).action(
    action(ctx, async (cmd) => {
      const { items } = await ctx.client(cmd).judging.list(sig());
      ctx.print(cmd, { items }, (s) =>
        renderTable(
          ['id', 'name', 'role', 'status', 'votes', 'pairs complete'],
          items.map((c) => [
            c.id,
            c.name,
            c.role,
            c.status,
            c.progress.votes,
            `${c.progress.pairsComplete}/${c.progress.pairs}`,
          ]),
          s,
        ),
      );
    }),
  );

  leaf(
    judge
      .command('status')
      .description("A campaign's question, progress and items")
      .argument('<id>', 'the campaign id'),
    ['vesta judge status CAMPAIGN'],
  ).action(
    action(ctx, async (cmd, id: string) => {
      const c = await ctx.client(cmd).judging.get(id, sig());
      ctx.print(cmd, c, (s) => renderCampaign(c, s));
    }),
  );

  for (const [name, description] of [
    ['close', 'Close a campaign: no more votes; the judges see the names'],
    ['reveal', 'Reveal the names to the judges (judging goes on)'],
  ] as const)
    leaf(judge.command(name).description(description).argument('<id>', 'the campaign id'), [
      `vesta judge ${name} CAMPAIGN`,
    ]).action(
      action(ctx, async (cmd, id: string) => {
        const c = await ctx.client(cmd).judging[name](id, sig());
        ctx.print(cmd, c, (s) => renderCampaign(c, s));
      }),
    );

  leaf(
    judge
      .command('delete')
      .description('Delete a campaign with its votes')
      .argument('<id>', 'the campaign id'),
    ['vesta judge delete CAMPAIGN'],
  ).action(
    action(ctx, async (cmd, id: string) => {
      await ctx.client(cmd).judging.delete(id, sig());
      ctx.print(cmd, { id, deleted: true }, (s) => s.yellow(`Deleted ${id}.`));
    }),
  );

  leaf(judge.command('judges').description("A campaign's judges").argument('<id>', 'the campaign id'), [
    'vesta judge judges CAMPAIGN',
  ]).action(
    action(ctx, async (cmd, id: string) => {
      const { items } = await ctx.client(cmd).judging.judges(id, sig());
      ctx.print(cmd, { items }, (s) =>
        renderTable(
          ['id', 'pseudonym', 'user', 'email', 'status', 'votes'],
          items.map((j) => [j.id, j.pseudonym, j.userName ?? '', j.email ?? '', j.status, j.votes]),
          s,
        ),
      );
    }),
  );

  leaf(
    judge
      .command('add-judge')
      .description(
        "Add a judge by email or user name (an email without an account: an admin invites it; anyone else needs an admin's pending invite)",
      )
      .argument('<id>', 'the campaign id')
      .option('--email <email>', "the judge's email")
      .option('--user <name>', "an existing user's name"),
    ['vesta judge add-judge CAMPAIGN --email ana@example.com', 'vesta judge add-judge CAMPAIGN --user ana'],
  ).action(
    action(ctx, async (cmd, id: string) => {
      const o = cmd.opts<{ email?: string; user?: string }>();
      const who = o.email !== undefined ? { email: o.email } : { userName: o.user ?? '' };
      const added = await ctx.client(cmd).judging.addJudge(id, who, sig());
      ctx.print(cmd, added, (s) => {
        const j = added.judge;
        const line = `${s.green('Added')} ${j.pseudonym} (${j.status})`;
        return added.invite ? `${line}\ninvite link (shown once): ${added.invite.url}` : line;
      });
    }),
  );

  leaf(
    judge
      .command('remove-judge')
      .description('Remove a judge: their votes are kept but no longer counted')
      .argument('<id>', 'the campaign id')
      .argument('<judgeId>', 'the judge id (see `vesta judge judges`)'),
    ['vesta judge remove-judge CAMPAIGN JUDGE'],
  ).action(
    action(ctx, async (cmd, id: string, judgeId: string) => {
      await ctx.client(cmd).judging.removeJudge(id, judgeId, sig());
      ctx.print(cmd, { id, judgeId, removed: true }, (s) => s.yellow(`Removed ${judgeId}.`));
    }),
  );

  leaf(
    judge.command('next').description('The next pair for you to judge').argument('<id>', 'the campaign id'),
    ['vesta judge next CAMPAIGN --json'],
  ).action(
    action(ctx, async (cmd, id: string) => {
      const next = await ctx.client(cmd).judging.nextPairs(id, {}, sig());
      ctx.print(cmd, next, (s) => {
        const o = next.offers[0];
        if (!o) return s.green('Nothing left for you to judge.');
        return renderFields(
          {
            offer: o.offerId,
            question: o.question,
            prompt: o.prompt,
            left: o.left.contentUrl,
            right: o.right.contentUrl,
          },
          s,
        );
      });
    }),
  );

  leaf(
    judge
      .command('vote')
      .description(`Answer an offer: ${ANSWERS.join(', ')}`)
      .argument('<id>', 'the campaign id')
      .argument('<offerId>', 'the offer (from `vesta judge next`)')
      .argument('<answer>', ANSWERS.join(' | ')),
    ['vesta judge vote CAMPAIGN OFFER left'],
  ).action(
    action(ctx, async (cmd, id: string, offerId: string, answer: string) => {
      const vote = await ctx.client(cmd).judging.vote(id, offerId, answer as JudgingAnswer, sig());
      ctx.print(cmd, vote, (s) => `${s.green('Voted')} ${vote.answer} (your votes: ${vote.yourVotes})`);
    }),
  );

  leaf(
    judge
      .command('clip')
      .description("Download a clip offered to you by the campaign's clip id")
      .argument('<id>', 'the campaign id')
      .argument('<clipId>', "an offer's left or right clip id")
      .requiredOption('-o, --output <file>', 'write the clip to this file'),
    ['vesta judge clip CAMPAIGN CLIP -o left.mp4'],
  ).action(
    action(ctx, async (cmd, id: string, clipId: string) => {
      const { output } = cmd.opts<{ output: string }>();
      const clip = await ctx.client(cmd).judging.clipContent(id, clipId, sig());
      await writeFile(output, clip.bytes);
      ctx.print(
        cmd,
        { file: output, bytes: clip.bytes.byteLength, contentType: clip.contentType },
        (s) => `${s.green('Wrote')} ${output} (${clip.bytes.byteLength} bytes)`,
      );
    }),
  );

  const fmt = (x: number | null, digits = 3): string => (x === null ? '—' : x.toFixed(digits));
  leaf(
    judge
      .command('ratings')
      .description("Ratings with 95 % intervals, and each judge's agreement")
      .argument('<id>', 'the campaign id'),
    ['vesta judge ratings CAMPAIGN'],
  ).action(
    action(ctx, async (cmd, id: string) => {
      const r = await ctx.client(cmd).judging.ratings(id, sig());
      ctx.print(cmd, r, (s) => {
        const table = renderTable(
          ['item', 'rating', '95% interval', 'votes', 'W-L-T'],
          r.items.map((i) => [
            i.label,
            fmt(i.rating),
            `[${fmt(i.ci95Low)}, ${fmt(i.ci95High)}]`,
            i.votes,
            `${i.wins}-${i.losses}-${i.ties}`,
          ]),
          s,
        );
        const judges = r.judges
          ? `\n\n${renderTable(
              ['judge', 'votes', 'agreement', 'below chance'],
              r.judges.map((j) => [j.judge, j.votes, fmt(j.agreement), j.belowChance ? s.red('yes') : 'no']),
              s,
            )}`
          : '';
        // Each decided vote is one item's win, each tie one tie of each of its two items; r.votes also
        // counts both_bad and skip, which do not enter the ratings.
        const rated = r.items.reduce((n, i) => n + i.wins + i.ties / 2, 0);
        return `${table}${judges}\n${s.dim(`ratings from ${rated} of ${r.votes} votes (both_bad and skip do not enter them), ${r.votesExcluded} of removed judges left out`)}`;
      });
    }),
  );

  leaf(
    judge
      .command('agreement')
      .description('How well each automated dimension agrees with the judges')
      .argument('<id>', 'the campaign id'),
    ['vesta judge agreement CAMPAIGN --json'],
  ).action(
    action(ctx, async (cmd, id: string) => {
      const r = await ctx.client(cmd).judging.agreement(id, sig());
      ctx.print(cmd, r, (s) => {
        const table = renderTable(
          ['dimension', 'pairs', 'agreement', '95% interval', 'Kendall τ'],
          r.dimensions.map((d) => [
            d.dimension,
            d.pairs,
            fmt(d.agreement),
            `[${fmt(d.ci95Low)}, ${fmt(d.ci95High)}]`,
            fmt(d.kendallTau),
          ]),
          s,
        );
        const f = r.fitted;
        return f
          ? `${table}\nteam score (${f.label}): held-out accuracy ${fmt(f.heldOutAccuracy)} vs best single dimension ${f.bestSingleDimension} ${fmt(f.bestSingleAccuracy)}`
          : table;
      });
    }),
  );

  leaf(
    judge
      .command('export')
      .description('Export the votes (clip ids, prompt, answer, judge pseudonym, time) as CSV or JSON Lines')
      .argument('<id>', 'the campaign id')
      .option('--format <format>', 'csv (default) or jsonl')
      .option('-o, --output <file>', 'write to this file'),
    ['vesta judge export CAMPAIGN -o votes.csv', 'vesta judge export CAMPAIGN --format jsonl > votes.jsonl'],
  ).action(
    action(ctx, async (cmd, id: string) => {
      const o = cmd.opts<{ format?: string; output?: string }>();
      if (o.format !== undefined && o.format !== 'csv' && o.format !== 'jsonl')
        throw new InvalidArgumentError('--format must be csv or jsonl');
      const text = await ctx.client(cmd).judging.export(id, { format: o.format }, sig());
      if (o.output) {
        await writeFile(o.output, text);
        ctx.print(
          cmd,
          { id, file: o.output, bytes: Buffer.byteLength(text) },
          (s) => `${s.green('Wrote')} ${o.output}`,
        );
      } else if (ctx.globals(cmd).json) {
        ctx.print(cmd, { id, text }, () => '');
      } else {
        ctx.io.stdout.write(text);
      }
    }),
  );
}
