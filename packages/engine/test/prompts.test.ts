// The Bench prompt suite: every dimension has prompts, semantic ones carry complete auxiliary
// info, clip groups mirror VBench's sharing, and nothing repeats.
import { describe, expect, it } from 'vitest';
import { DIMENSION_IDS } from '../src/contract.js';
import {
  CLIP_GROUPS,
  PROMPT_SUITE_VERSION,
  REQUIRED_AUXILIARY,
  clipGroupOf,
  planPrompts,
  promptsForDimension,
} from '../src/prompts/index.js';

describe('prompt suite', () => {
  it('is versioned', () => {
    expect(PROMPT_SUITE_VERSION).toMatch(/^vesta-prompts-\d{4}\.\d{2}$/);
  });

  it('gives every dimension 10–20 prompts through exactly one clip group', () => {
    for (const id of DIMENSION_IDS) {
      const owners = CLIP_GROUPS.filter((g) => g.dimensions.includes(id));
      expect(owners, id).toHaveLength(1);
      const p = promptsForDimension(id);
      expect(p.suiteVersion).toBe(PROMPT_SUITE_VERSION);
      expect(p.clipGroup).toBe(owners[0]!.id);
      expect(p.prompts.length, id).toBeGreaterThanOrEqual(10);
      expect(p.prompts.length, id).toBeLessThanOrEqual(20);
    }
  });

  it('shares clips as VBench does', () => {
    expect(clipGroupOf('motion_smoothness').dimensions).toEqual([
      'subject_consistency',
      'motion_smoothness',
      'dynamic_degree',
    ]);
    expect(clipGroupOf('background_consistency').id).toBe('scene');
    expect(clipGroupOf('imaging_quality').dimensions).toEqual([
      'aesthetic_quality',
      'imaging_quality',
      'overall_consistency',
    ]);
    expect(clipGroupOf('color').dimensions).toEqual(['color']);
    expect(CLIP_GROUPS).toHaveLength(11);
  });

  it('carries complete auxiliary info on every prompt of a semantic dimension', () => {
    for (const [dimension, keys] of Object.entries(REQUIRED_AUXILIARY)) {
      for (const p of clipGroupOf(dimension as (typeof DIMENSION_IDS)[number]).prompts) {
        for (const k of keys ?? []) expect(p.auxiliary[k]?.trim(), `${p.id} ${k}`).toBeTruthy();
      }
    }
    for (const p of clipGroupOf('spatial_relationship').prompts) {
      const { object_a, object_b, relationship } = p.auxiliary;
      expect(p.text).toContain(`${object_a!} ${relationship!} a ${object_b!}`);
    }
    for (const p of clipGroupOf('color').prompts) expect(p.text).toContain(p.auxiliary.color);
    for (const p of clipGroupOf('multiple_objects').prompts) expect(p.auxiliary.object).toMatch(/ and /);
  });

  it('has no duplicate prompt text or id', () => {
    const all = CLIP_GROUPS.flatMap((g) => g.prompts);
    const texts = all.map((p) => p.text.trim().toLowerCase());
    expect(new Set(texts).size).toBe(texts.length);
    expect(new Set(all.map((p) => p.id)).size).toBe(all.length);
  });

  it('plans each shared clip once, limited per group', () => {
    const plan = planPrompts(['motion_smoothness', 'subject_consistency', 'color'], 3);
    expect(plan.map((p) => p.group)).toEqual([
      'subject_consistency',
      'subject_consistency',
      'subject_consistency',
      'color',
      'color',
      'color',
    ]);
    expect(plan[0]!.dimensions).toEqual(['subject_consistency', 'motion_smoothness']);
    expect(planPrompts(['scene']).length).toBe(clipGroupOf('scene').prompts.length);
    expect(() => planPrompts(['scene'], 0)).toThrow(RangeError);
  });
});
