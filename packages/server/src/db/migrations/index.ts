/**
 * Every migration, in order. Each has a stable name (never renamed once shipped); they run at
 * start through Kysely's Migrator. Bench adds `0002-bench`; the runner protocol `0003-runners`;
 * per-state task counters on each run `0004-bench-progress`; model owners and fair job claims
 * `0005-tenancy`; dashboard accounts, web sessions, invites and key metadata `0006-accounts`;
 * shared secrets `0007-distributed`; the job engine's leases and fair-share bookkeeping
 * `0008-job-engine`; the version of each confirmed clip's object `0009-blob-objects`; the process owning an
 * upload that is streaming `0010-cluster`; rate-limit
 * buckets and sign-in lockout counters `0012-rate-limits`; stored scorecards with intervals and
 * model baselines `0013-decisions`; blind pairwise judging campaigns `0014-judging`.
 */
import type { Migration } from 'kysely';
import * as core from './0001-core.js';
import * as bench from './0002-bench.js';
import * as runners from './0003-runners.js';
import * as benchProgress from './0004-bench-progress.js';
import * as tenancy from './0005-tenancy.js';
import * as accounts from './0006-accounts.js';
import * as distributed from './0007-distributed.js';
import * as jobEngine from './0008-job-engine.js';
import * as blobObjects from './0009-blob-objects.js';
import * as cluster from './0010-cluster.js';
import * as rateLimits from './0012-rate-limits.js';
import * as decisions from './0013-decisions.js';
import * as judging from './0014-judging.js';
import * as judgingVotesByJudge from './0015-judging-votes-by-judge.js';

export const MIGRATIONS: ReadonlyArray<{ name: string; migration: Migration }> = [
  { name: '0001-core', migration: core },
  { name: '0002-bench', migration: bench },
  { name: '0003-runners', migration: runners },
  { name: '0004-bench-progress', migration: benchProgress },
  { name: '0005-tenancy', migration: tenancy },
  { name: '0006-accounts', migration: accounts },
  { name: '0007-distributed', migration: distributed },
  { name: '0008-job-engine', migration: jobEngine },
  { name: '0009-blob-objects', migration: blobObjects },
  { name: '0010-cluster', migration: cluster },
  { name: '0012-rate-limits', migration: rateLimits },
  { name: '0013-decisions', migration: decisions },
  { name: '0014-judging', migration: judging },
  { name: '0015-judging-votes-by-judge', migration: judgingVotesByJudge },
];
