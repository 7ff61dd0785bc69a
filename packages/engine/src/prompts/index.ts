/**
 * Vesta's prompt suite for Bench runs (versioned), with VBench's clip sharing: dimensions that
 * VBench evaluates on the same videos share one clip group here, so a run generates each clip once
 * (vbench-methods.md §4.1):
 * - subject_consistency, dynamic_degree, motion_smoothness → group `subject_consistency`;
 * - scene, background_consistency → group `scene`;
 * - overall_consistency, aesthetic_quality, imaging_quality → group `overall_consistency`;
 * - every other dimension → its own group.
 *
 * Auxiliary info per semantic dimension: object_class `object`; multiple_objects `object`
 * ("a and b"); human_action `action`; color `color` (+ `object`); spatial_relationship
 * `object_a`, `object_b`, `relationship`; scene `scene`; appearance_style `appearance_style`.
 */
import { DIMENSION_IDS } from '../contract.js';
import type { DimensionId } from '../contract.js';
import { GROUP_SEEDS } from './groups.js';

/** Changes whenever any prompt text or auxiliary value changes. */
export const PROMPT_SUITE_VERSION = 'vesta-prompts-2026.11';

export interface SuitePrompt {
  /** Stable within a suite version: `<group>-<nn>`. */
  id: string;
  text: string;
  /** Auxiliary info the group's dimensions read ({} when they read none). */
  auxiliary: Record<string, string>;
}

export interface ClipGroup {
  id: string;
  /** The dimensions evaluated on this group's clips, in VBench order. */
  dimensions: DimensionId[];
  prompts: SuitePrompt[];
}

/** The auxiliary keys each dimension needs on every prompt of its group. */
export const REQUIRED_AUXILIARY: Readonly<Partial<Record<DimensionId, readonly string[]>>> = {
  object_class: ['object'],
  multiple_objects: ['object'],
  human_action: ['action'],
  color: ['color'],
  spatial_relationship: ['object_a', 'object_b', 'relationship'],
  scene: ['scene'],
  appearance_style: ['appearance_style'],
};

const order = (dims: readonly DimensionId[]): DimensionId[] => DIMENSION_IDS.filter((d) => dims.includes(d));

export const CLIP_GROUPS: readonly ClipGroup[] = GROUP_SEEDS.map((g) => ({
  id: g.id,
  dimensions: order(g.dimensions),
  prompts: g.prompts.map((p, i) => ({
    id: `${g.id}-${String(i + 1).padStart(2, '0')}`,
    text: p.text,
    auxiliary: { ...(p.auxiliary ?? {}) },
  })),
}));

/** The clip group whose clips `dimension` is evaluated on. */
export function clipGroupOf(dimension: DimensionId): ClipGroup {
  const group = CLIP_GROUPS.find((g) => g.dimensions.includes(dimension));
  if (!group) throw new RangeError(`no clip group for dimension ${dimension}`);
  return group;
}

export interface DimensionPrompts {
  suiteVersion: string;
  dimension: DimensionId;
  clipGroup: string;
  prompts: SuitePrompt[];
}

/** The prompts a dimension is evaluated on (its clip group's). */
export function promptsForDimension(dimension: DimensionId): DimensionPrompts {
  const group = clipGroupOf(dimension);
  return {
    suiteVersion: PROMPT_SUITE_VERSION,
    dimension,
    clipGroup: group.id,
    prompts: group.prompts.map((p) => ({ ...p, auxiliary: { ...p.auxiliary } })),
  };
}

export interface PlannedPrompt {
  group: string;
  prompt: SuitePrompt;
  /** The requested dimensions this prompt's clips are evaluated on. */
  dimensions: DimensionId[];
}

/**
 * The prompts a run on `dimensions` generates: for each clip group covering at least one of them
 * (in suite order), its first `promptsPerGroup` prompts (all when undefined), each once.
 */
export function planPrompts(dimensions: readonly DimensionId[], promptsPerGroup?: number): PlannedPrompt[] {
  if (promptsPerGroup !== undefined && (!Number.isInteger(promptsPerGroup) || promptsPerGroup < 1))
    throw new RangeError('promptsPerGroup must be a whole number ≥ 1');
  const out: PlannedPrompt[] = [];
  for (const group of CLIP_GROUPS) {
    const dims = group.dimensions.filter((d) => dimensions.includes(d));
    if (dims.length === 0) continue;
    const prompts = promptsPerGroup === undefined ? group.prompts : group.prompts.slice(0, promptsPerGroup);
    for (const prompt of prompts)
      out.push({
        group: group.id,
        prompt: { ...prompt, auxiliary: { ...prompt.auxiliary } },
        dimensions: dims,
      });
  }
  return out;
}
