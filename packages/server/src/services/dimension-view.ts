/** The dimension registry as the API shows it (discovery). */
import type { DimensionInfo } from '@vesta/engine';
import type { DimensionView } from '../domain/views/discovery.js';

export function dimensionView(d: DimensionInfo): DimensionView {
  return {
    id: d.id,
    name: d.name,
    description: d.description,
    category: d.category,
    higherIsBetter: d.higherIsBetter,
    range: { min: d.range.min, max: d.range.max },
    methods: d.methods.map((m) => ({
      id: m.id,
      version: m.version,
      description: m.description,
      requires: {
        models: [...m.requires.models],
        auxiliary: [...m.requires.auxiliary],
        prompt: m.requires.prompt,
      },
      available: m.available,
      unavailableReason: m.unavailableReason ?? null,
    })),
    defaultMethod: d.defaultMethod,
    normalisation: { ...d.normalisation },
    workflows: [...d.workflows],
  };
}
