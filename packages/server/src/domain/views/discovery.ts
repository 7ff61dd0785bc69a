/**
 * What the discovery reads return: the dimension registry as the API shows it, and the models a
 * Bench run can evaluate. Checked against `http/routes/discovery/schemas.ts` at compile time.
 */

export interface DimensionMethodView {
  id: string;
  version: string;
  description: string;
  requires: { models: string[]; auxiliary: string[]; prompt: boolean };
  available: boolean;
  unavailableReason: string | null;
}

export interface DimensionView {
  id: string;
  name: string;
  description: string;
  category: 'quality' | 'semantic';
  higherIsBetter: boolean;
  range: { min: number; max: number };
  methods: DimensionMethodView[];
  defaultMethod: string | null;
  normalisation: { min: number; max: number; weight: number };
  workflows: Array<'score' | 'rank' | 'bench'>;
}

export interface ModelRunnerView {
  id: string;
  name: string;
  online: boolean;
  lastSeenAt: string | null;
}

export interface ModelView {
  id: string;
  name: string;
  description: string;
  runners: ModelRunnerView[];
  /** True when at least one runner serving the model is online. */
  online: boolean;
  createdAt: string;
}
