/**
 * Scores that do not read the prompt (issue #24 item 6). Without the models of the dimensions that
 * read a clip's text prompt (overall_consistency, temporal_style: CLIP or ViCLIP), a Score result or
 * a Rank leaderboard is computed from the pixels alone and would silently ignore the prompt. The
 * notice says so where the numbers are, naming the dimensions left out and the command that fetches
 * the model they need.
 */
import { getMethod } from '@vesta/engine';
import type { DimensionInfo, MethodInfo } from '@vesta/engine';
import type { PromptNoticeView, UnscoredDimensionView } from '../domain/views/score-rank.js';

type Workflow = 'score' | 'rank' | 'bench';
type Reader = { id: string; models: string[] };

/**
 * Each listing's readers by workflow. The engine shares one frozen listing while model
 * availability is unchanged, so the readers are worked out once per listing, not on every read
 * of a run, clip or leaderboard.
 */
const readersOf = new WeakMap<readonly DimensionInfo[], Map<Workflow, readonly Reader[]>>();

/** The dimensions of `workflow` that read the prompt, each with the lightest set of models that scores it. */
function promptReaders(dimensions: readonly DimensionInfo[], workflow: Workflow): readonly Reader[] {
  let byWorkflow = readersOf.get(dimensions);
  if (!byWorkflow) readersOf.set(dimensions, (byWorkflow = new Map<Workflow, readonly Reader[]>()));
  let readers = byWorkflow.get(workflow);
  if (!readers) byWorkflow.set(workflow, (readers = findPromptReaders(dimensions, workflow)));
  return readers;
}

function findPromptReaders(dimensions: readonly DimensionInfo[], workflow: Workflow): Reader[] {
  return dimensions
    .filter((d) => d.workflows.includes(workflow))
    .flatMap((d) => {
      // Methods this build ships: a model fetched for one that it does not would change nothing.
      const reading = d.methods.filter((m) => m.requires.prompt && getMethod(d.id, m.id) !== undefined);
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
 * prompt; null when one does, when there is no prompt, or when nothing is scored yet. A Bench run
 * passes the dimensions it asked for (`requested`): when it asked for no prompt reader, the notice
 * says so, so that nobody reads it as "pull the model and this run's scores will read the prompts".
 */
export function promptNotice(
  dimensions: readonly DimensionInfo[],
  workflow: Workflow,
  prompt: string | null,
  scoredDimensions: readonly string[],
  requested?: readonly string[],
): PromptNoticeView | null {
  if (prompt === null || prompt.trim() === '' || scoredDimensions.length === 0) return null;
  const readers = promptReaders(dimensions, workflow);
  if (readers.length === 0 || readers.some((r) => scoredDimensions.includes(r.id))) return null;
  // A Bench run scores the dimensions its owner chose: a prompt reader this server can score now
  // was left out by choice, and no model to fetch would change that.
  if (workflow === 'bench' && readers.some((r) => dimensions.find((d) => d.id === r.id)?.defaultMethod))
    return null;
  const models = [...new Set(readers.flatMap((r) => r.models))];
  const ids = readers.map((r) => r.id);
  const what =
    workflow === 'rank'
      ? 'this ranking does not read the prompt'
      : workflow === 'bench'
        ? "this run's scores do not read the prompts"
        : 'these scores do not read the prompt';
  const theModels = `${models.length === 1 ? 'the model' : 'the models'} ${list(models)}`;
  const needs =
    requested && !requested.some((d) => ids.includes(d))
      ? `none of its dimensions reads them; ${list(ids)} would, and ${ids.length === 1 ? 'needs' : 'need'} ${theModels}`
      : `${list(ids)} ${ids.length === 1 ? 'needs' : 'need'} ${theModels}`;
  const command = `vesta models pull ${models.join(' ')}`;
  return {
    code: 'prompt_not_read',
    detail: `${what}: ${needs} — \`${command}\``,
    dimensions: ids,
    models,
    command,
  };
}

/**
 * The models that would make `info` scorable on this server: those missing for the method,
 * implemented by this build, that needs the fewest (on a tie the later, as above); empty when no
 * model would help (the dimension is scorable, or no method this build ships takes models).
 */
function missingModels(info: DimensionInfo): string[] {
  const fixable = info.methods.filter(
    (m: MethodInfo) => !m.available && m.requires.models.length > 0 && getMethod(info.id, m.id) !== undefined,
  );
  if (fixable.length === 0) return [];
  const lightest = fixable.reduce((best, m) =>
    m.requires.models.length <= best.requires.models.length ? m : best,
  );
  return lightest.requires.models;
}

/**
 * A dimension a user asked for that cannot be scored on this server as it is now (no method
 * available: its models are not pulled), with why and the command that fixes it; null when it can
 * be scored (or is not a known dimension).
 */
export function unscorableNow(
  dimensions: readonly DimensionInfo[],
  dimension: string,
): UnscoredDimensionView | null {
  const info = dimensions.find((d) => d.id === dimension);
  if (!info || info.defaultMethod !== null) return null;
  const models = missingModels(info);
  if (models.length === 0)
    return {
      dimension,
      code: 'method_unavailable',
      detail: `${dimension} cannot be scored: no method of it is available in this build`,
      models: [],
      command: null,
    };
  const command = `vesta models pull ${models.join(' ')}`;
  return {
    dimension,
    code: 'model_unavailable',
    detail: `${dimension} was not scored: it needs ${models.length === 1 ? 'the model' : 'the models'} ${list(models)}, not on this server — \`${command}\``,
    models,
    command,
  };
}

/**
 * A dimension a user asked for whose clips all failed to be scored, explained by the failures the
 * engine recorded (`code`, `detail`); the fixing command when its models are still missing now.
 */
export function unscoredByFailure(
  dimensions: readonly DimensionInfo[],
  dimension: string,
  failure: { code: string; detail: string },
): UnscoredDimensionView {
  const info = dimensions.find((d) => d.id === dimension);
  const models = info && info.defaultMethod === null ? missingModels(info) : [];
  const command = models.length > 0 ? `vesta models pull ${models.join(' ')}` : null;
  return {
    dimension,
    code: failure.code,
    detail: `${dimension} was not scored (${failure.code}): ${failure.detail}${command ? ` — \`${command}\`` : ''}`,
    models,
    command,
  };
}

function list(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]!}`;
}
