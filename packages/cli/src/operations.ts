/**
 * The one table that keeps the REST API, the SDK and the CLI in step: every operationId of
 * openapi/openapi.json maps to the SDK method and the CLI command that perform it. A test reads
 * the OpenAPI document and fails when an operation is missing here, or when a named SDK method or
 * CLI command does not exist. (`bench.runWithPipeline`, an in-process SDK helper, has no REST
 * operation and no CLI command.)
 *
 * The dashboard's account operations (cookie session only: the server refuses an API key there)
 * have an SDK method in session mode and no CLI command (`cli: null`): the interface puts account
 * and key management in the web dashboard. `createApiKey` and `revokeApiKey` map to
 * `vesta api-keys create|revoke`, which exist only to point at the dashboard.
 */
export interface OperationMapping {
  /** Dotted path of the SDK method on a `Vesta` instance. */
  sdk: string;
  /** The CLI command (words after `vesta`); null for a dashboard-only operation. */
  cli: string | null;
}

export const OPERATIONS: Readonly<Record<string, OperationMapping>> = {
  getScoreSession: { sdk: 'score.getOrCreate', cli: 'score get' },
  resetScoreSession: { sdk: 'score.reset', cli: 'score reset' },
  createScoreUploadUrl: { sdk: 'score.createUploadUrl', cli: 'score upload' },
  confirmScoreUpload: { sdk: 'score.confirmUpload', cli: 'score upload' },
  removeScoreVideo: { sdk: 'score.removeVideo', cli: 'score remove' },
  getRankSession: { sdk: 'rank.getOrCreate', cli: 'rank get' },
  resetRankSession: { sdk: 'rank.reset', cli: 'rank reset' },
  createRankUploadUrl: { sdk: 'rank.createUploadUrl', cli: 'rank upload' },
  confirmRankUpload: { sdk: 'rank.confirmUpload', cli: 'rank upload' },
  getRankLeaderboard: { sdk: 'rank.getRanked', cli: 'rank current' },
  removeRankVideo: { sdk: 'rank.removeVideo', cli: 'rank remove' },
  /** The PUT to the minted upload URL: step 2 of `score.upload` / `rank.upload`. */
  putUpload: { sdk: 'score.upload', cli: 'score upload' },
  createBenchRun: { sdk: 'bench.create', cli: 'bench create' },
  listBenchRuns: { sdk: 'bench.list', cli: 'bench list' },
  getBenchRun: { sdk: 'bench.get', cli: 'bench get' },
  cancelBenchRun: { sdk: 'bench.cancel', cli: 'bench cancel' },
  deleteBenchRun: { sdk: 'bench.delete', cli: 'bench delete' },
  listBenchVideos: { sdk: 'bench.videos', cli: 'bench videos' },
  getBenchCsv: { sdk: 'bench.csv', cli: 'bench csv' },
  getBenchScorecard: { sdk: 'bench.scorecard', cli: 'bench scorecard' },
  compareBenchRuns: { sdk: 'bench.compare', cli: 'bench compare' },
  getModelBaseline: { sdk: 'models.baseline', cli: 'bench baseline get' },
  setModelBaseline: { sdk: 'models.setBaseline', cli: 'bench baseline set' },
  clearModelBaseline: { sdk: 'models.clearBaseline', cli: 'bench baseline clear' },
  getBenchLogs: { sdk: 'bench.logs', cli: 'bench logs' },
  getVideoContent: { sdk: 'videos.content', cli: 'videos download' },
  listDimensions: { sdk: 'dimensions.list', cli: 'dimensions list' },
  listModels: { sdk: 'models.list', cli: 'bench models' },
  listDimensionPrompts: { sdk: 'dimensions.prompts', cli: 'dimensions prompts' },
  listRunners: { sdk: 'runners.list', cli: 'runner list' },
  getRunner: { sdk: 'runners.get', cli: 'runner get' },
  deregisterRunner: { sdk: 'runners.deregister', cli: 'runner rm' },
  // The runner protocol: `vesta runner start` performs these in its loop (register once, then
  // claim, heartbeat, upload-url, complete or fail per task); the SDK has one method per operation.
  registerRunner: { sdk: 'runners.register', cli: 'runner start' },
  claimRunnerTask: { sdk: 'runners.claim', cli: 'runner start' },
  heartbeatRunnerTask: { sdk: 'runners.heartbeat', cli: 'runner start' },
  createRunnerTaskUploadUrl: { sdk: 'runners.createUploadUrl', cli: 'runner start' },
  completeRunnerTask: { sdk: 'runners.complete', cli: 'runner start' },
  failRunnerTask: { sdk: 'runners.fail', cli: 'runner start' },
  // Judging campaigns (issue #23): the owner's commands, and a judge's next pair and vote (the
  // dashboard's judging page is the comfortable way to judge).
  createJudgingCampaign: { sdk: 'judging.create', cli: 'judge create' },
  listJudgingCampaigns: { sdk: 'judging.list', cli: 'judge list' },
  getJudgingCampaign: { sdk: 'judging.get', cli: 'judge status' },
  closeJudgingCampaign: { sdk: 'judging.close', cli: 'judge close' },
  revealJudgingCampaign: { sdk: 'judging.reveal', cli: 'judge reveal' },
  deleteJudgingCampaign: { sdk: 'judging.delete', cli: 'judge delete' },
  listJudgingJudges: { sdk: 'judging.judges', cli: 'judge judges' },
  addJudgingJudge: { sdk: 'judging.addJudge', cli: 'judge add-judge' },
  removeJudgingJudge: { sdk: 'judging.removeJudge', cli: 'judge remove-judge' },
  getNextJudgingPairs: { sdk: 'judging.nextPairs', cli: 'judge next' },
  castJudgingVote: { sdk: 'judging.vote', cli: 'judge vote' },
  getJudgingClipContent: { sdk: 'judging.clipContent', cli: 'judge clip' },
  exportJudgingVotes: { sdk: 'judging.export', cli: 'judge export' },
  getJudgingRatings: { sdk: 'judging.ratings', cli: 'judge ratings' },
  getJudgingAgreement: { sdk: 'judging.agreement', cli: 'judge agreement' },
  // Dashboard accounts (session mode of the SDK; no CLI command: the dashboard is the place).
  getSetupState: { sdk: 'auth.setupState', cli: null },
  setupFirstAdmin: { sdk: 'auth.setup', cli: null },
  signIn: { sdk: 'auth.signIn', cli: null },
  acceptInvite: { sdk: 'auth.acceptInvite', cli: null },
  getCurrentSession: { sdk: 'auth.session', cli: null },
  signOut: { sdk: 'auth.signOut', cli: null },
  changePassword: { sdk: 'account.changePassword', cli: null },
  listWebSessions: { sdk: 'account.sessions', cli: null },
  revokeWebSession: { sdk: 'account.revokeSession', cli: null },
  listApiKeys: { sdk: 'apiKeys.list', cli: null },
  createApiKey: { sdk: 'apiKeys.create', cli: 'api-keys create' },
  revokeApiKey: { sdk: 'apiKeys.revoke', cli: 'api-keys revoke' },
  listUsers: { sdk: 'users.list', cli: null },
  disableUser: { sdk: 'users.disable', cli: null },
  listInvites: { sdk: 'invites.list', cli: null },
  createInvite: { sdk: 'invites.create', cli: null },
  revokeInvite: { sdk: 'invites.revoke', cli: null },
};
