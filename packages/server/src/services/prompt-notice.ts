/**
 * Scores that do not read the prompt (issue #24 item 6). Without the models of the dimensions that
 * read a clip's text prompt (overall_consistency, temporal_style: CLIP or ViCLIP), a Score result or
 * a Rank leaderboard is computed from the pixels alone and would silently ignore the prompt. The
 * notice says so where the numbers are, naming the dimensions left out and the command that fetches
 * the model they need.
 */
import type { DimensionInfo } from '@vesta/engine';
import type { PromptNoticeView } from '../domain/views/score-rank.js';

/** The dimensions of `workflow` that read the prompt, each with the lightest set of models that scores it. */
function promptReaders(
  dimensions: readonly DimensionInfo[],
  workflow: 'score' | 'rank',
): Array<{ id: string; models: string[] }> {
  return dimensions
    .filter((d) => d.workflows.includes(workflow))
    .flatMap((d) => {
      const reading = d.methods.filter((m) => m.requires.prompt);
      if (reading.length === 0) return [];
      // The method with the fewest models; on a tie the later one (the registry lists VBench's own
      // method first and the lighter substitutes after it).
      const lightest = reading.reduce((best, m) =>
        m.requires.models.length <= best.requires.models.length ? m : best,
      );
      return [{ id: d.id, models: lightest.requires.models }];
    });
}

/**
 * The notice for scores of a clip made from a prompt when none of `scoredDimensions` reads the
 * prompt; null when one does, when there is no prompt, or when nothing is scored yet.
 */
export function promptNotice(
  dimensions: readonly DimensionInfo[],
  workflow: 'score' | 'rank',
  prompt: string | null,
  scoredDimensions: readonly string[],
): PromptNoticeView | null {
  if (prompt === null || prompt.trim() === '' || scoredDimensions.length === 0) return null;
  const readers = promptReaders(dimensions, workflow);
  if (readers.length === 0 || readers.some((r) => scoredDimensions.includes(r.id))) return null;
  const models = [...new Set(readers.flatMap((r) => r.models))];
  const ids = readers.map((r) => r.id);
  const what =
    workflow === 'rank' ? 'this ranking does not read the prompt' : 'these scores do not read the prompt';
  const needs = `${list(ids)} ${ids.length === 1 ? 'needs' : 'need'} ${models.length === 1 ? 'the model' : 'the models'} ${list(models)}`;
  const command = `vesta models pull ${models.join(' ')}`;
  return {
    code: 'prompt_not_read',
    detail: `${what}: ${needs} — \`${command}\``,
    dimensions: ids,
    models,
    command,
  };
}

function list(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]!}`;
}
