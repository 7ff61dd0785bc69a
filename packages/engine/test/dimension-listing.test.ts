/**
 * The dimension listing `Engine.dimensions()` shares while nothing it reads can have changed
 * (src/dimension-listing.ts): it is made again on a new installed state of the model store, a
 * pull failure remembered, or after REUSE_MS; the shared listing is frozen. That a model installed
 * by another store shows at once is proven end to end by the server's bench-notices-models test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine, createModelStore, listDimensions } from '../src/index.js';
import { DimensionListing, REUSE_MS } from '../src/dimension-listing.js';

function fakeInputs() {
  const state = { stamp: 'a' as string | null, generation: 0, now: 1_000, made: 0 };
  const listing = new DimensionListing({
    make: () => {
      state.made++;
      return listDimensions();
    },
    installedStamp: () => state.stamp,
    generation: () => state.generation,
    now: () => state.now,
  });
  return { state, listing };
}

describe('dimension listing', () => {
  it('is made once and shared while the store, the failures and the time bound are unchanged', () => {
    const { state, listing } = fakeInputs();
    const first = listing.current();
    state.now += REUSE_MS - 1;
    expect(listing.current()).toBe(first);
    expect(state.made).toBe(1);
  });

  it('is made again on a new installed state, a remembered failure, or once REUSE_MS has passed', () => {
    const { state, listing } = fakeInputs();
    let last = listing.current();
    const next = (change: () => void): void => {
      change();
      const now = listing.current();
      expect(now).not.toBe(last);
      last = now;
    };
    next(() => (state.stamp = 'b'));
    next(() => state.generation++);
    next(() => (state.now += REUSE_MS));
    // A clock that went back is not trusted either.
    next(() => (state.now -= 1));
    expect(state.made).toBe(5);
  });

  it('keeps nothing while the store cannot say what is installed', () => {
    const { state, listing } = fakeInputs();
    state.stamp = null;
    expect(listing.current()).not.toBe(listing.current());
    expect(state.made).toBe(2);
  });

  it('is frozen all the way down, so that no caller changes what the next one reads', () => {
    const { listing } = fakeInputs();
    const dims = listing.current();
    const first = dims[0]!;
    expect(() => (dims as unknown as unknown[]).pop()).toThrow(TypeError);
    expect(() => Object.assign(first, { defaultMethod: null })).toThrow(TypeError);
    expect(() => (first.methods as unknown as unknown[]).push({})).toThrow(TypeError);
    expect(() => Object.assign(first.methods[0]!.requires, { prompt: true })).toThrow(TypeError);
    expect(listing.current()).toEqual(listDimensions());
  });
});

describe('Engine.dimensions() with a model store', () => {
  const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'vesta-listing-'));
  const engine = createEngine({ models: createModelStore({ cacheDir, offline: true }), threads: 1 });
  afterAll(async () => {
    await engine.close();
    rmSync(cacheDir, { recursive: true, force: true });
  });

  it('answers the registry as a listing made now would, shared between calls', () => {
    const first = engine.dimensions();
    expect(engine.dimensions()).toBe(first);
    expect(first).toEqual(listDimensions({ modelAvailable: () => false }));
    expect(Object.isFrozen(first)).toBe(true);
  });
});
