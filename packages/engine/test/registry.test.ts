import { describe, expect, it } from 'vitest';
import { DIMENSION_IDS } from '../src/contract.js';
import { getDimension, isDimensionId, listDimensions } from '../src/registry.js';
import { METHODS, getMethod } from '../src/dimensions/index.js';

describe('dimension registry', () => {
  it('lists the 16 VBench dimensions in order', () => {
    const dims = listDimensions();
    expect(dims.map((d) => d.id)).toEqual([...DIMENSION_IDS]);
    expect(dims.filter((d) => d.category === 'quality')).toHaveLength(7);
    expect(dims.filter((d) => d.category === 'semantic')).toHaveLength(9);
  });

  it('carries VBench leaderboard constants', () => {
    expect(getDimension('dynamic_degree')?.normalisation).toEqual({ min: 0, max: 1, weight: 0.5 });
    expect(getDimension('motion_smoothness')?.normalisation).toEqual({ min: 0.706, max: 0.9975, weight: 1 });
    expect(getDimension('appearance_style')?.normalisation).toEqual({ min: 0.0009, max: 0.2855, weight: 1 });
    const weights = listDimensions().reduce((s, d) => s + d.normalisation.weight, 0);
    expect(weights).toBe(15.5);
  });

  it('marks every implemented method available and every model-backed one unavailable with a reason', () => {
    for (const dim of listDimensions()) {
      expect(dim.methods.length).toBeGreaterThan(0);
      for (const m of dim.methods) {
        const impl = getMethod(dim.id, m.id);
        if (m.requires.models.length > 0) {
          // No model is installed in tests: a model-backed method is never available here.
          expect(m.available, `${dim.id}/${m.id}`).toBe(false);
          expect(m.unavailableReason).toMatch(/requires|not installed/);
        } else {
          expect(m.available, `${dim.id}/${m.id}`).toBe(impl !== undefined);
        }
        if (m.available) expect(m.version).toBe(impl?.version);
      }
      const avail = dim.methods.filter((m) => m.available);
      expect(dim.defaultMethod).toBe(avail.find((m) => m.id === 'vbench')?.id ?? avail[0]?.id ?? null);
    }
  });

  it('semantic dimensions have no default method until models are installed', () => {
    for (const dim of listDimensions().filter((d) => d.category === 'semantic')) {
      expect(dim.defaultMethod).toBeNull();
      expect(dim.methods.every((m) => m.requires.models.length > 0)).toBe(true);
    }
  });

  it('temporal_flickering defaults to the exact VBench formula', () => {
    expect(getDimension('temporal_flickering')?.defaultMethod).toBe('vbench');
  });

  it('a model-backed method becomes available when implemented and its models are present', () => {
    const fake = METHODS[0]!;
    const implemented = { ...fake, dimension: 'scene' as const, id: 'vbench' };
    const off = getDimension('scene', { methods: [implemented] });
    expect(off?.methods[0]?.available).toBe(false);
    expect(off?.methods[0]?.unavailableReason).toMatch(/not installed/);
    const on = getDimension('scene', { methods: [implemented], modelAvailable: () => true });
    expect(on?.methods[0]?.available).toBe(true);
    expect(on?.defaultMethod).toBe('vbench');
  });

  it('workflows: bench for all; score and rank only where a custom clip with its prompt suffices', () => {
    for (const dim of listDimensions()) {
      expect(dim.workflows).toContain('bench');
      const custom = dim.workflows.includes('score');
      expect(dim.workflows.includes('rank')).toBe(custom);
      const needsAux = dim.methods.some((m) => m.requires.auxiliary.length > 0);
      expect(custom).toBe(!needsAux);
    }
    expect(getDimension('overall_consistency')?.workflows).toContain('score');
    expect(getDimension('human_action')?.workflows).toEqual(['bench']);
  });

  it('isDimensionId and getDimension reject unknown ids', () => {
    expect(isDimensionId('scene')).toBe(true);
    expect(isDimensionId('Scene')).toBe(false);
    expect(isDimensionId(3)).toBe(false);
    expect(getDimension('nope')).toBeUndefined();
  });

  it('returns fresh objects (callers cannot corrupt the registry)', () => {
    const a = getDimension('scene')!;
    a.normalisation.max = 5;
    a.workflows.push('score');
    expect(getDimension('scene')?.normalisation.max).toBe(0.8222);
    expect(getDimension('scene')?.workflows).toEqual(['bench']);
  });
});
