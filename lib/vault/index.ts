/** Lucid's vault layer: the one way the dashboard, the CLI, the MCP server and the tests touch a vault. */
export * from './errors';
export * from './notes/paths';
export * from './notes/frontmatter';
export * from './notes/schema';
export * from './notes/links';
export { createLinkResolver } from './notes/link-resolver';
export * from './ids';
export * from './notes/layout';
export * from './git/changelog';
export * from './git/commit-index';
export { openVault, Vault, type LintReport } from './vault';
export * from './notes/note';
export * from './write/edit-types';
export { initVault, upgradeInstall } from './init';
export { memoryProtocol } from './agents/protocol';
export { inspectLock } from './write/lock';
export { assertWritableRepo, gitConfig } from './git/repo';
export { summarizeVault, type VaultSummary } from './stats';
export * from './notes/note-formats';
export * from './write/secrets';
export * from './agents/sessions';
export * from './agents/session-context';
// contract.ts's building blocks (requiredText, oneOf, the shared fields) stay inside lib/vault.
export { WRITE_MODES, inboxFlagSchema, type InboxFlag, INBOX_FLAGS, notASessionId, type InputProblem, inputProblem, parseInput } from './agents/contract';
export * from './agents/contract-read';
export * from './agents/contract-write';
export { renderStart } from './agents/render';
export * from './agents/session-ops';
export * from './agents/read-ops';
export * from './agents/read-note';
export * from './agents/inbox-ops';
export * from './agents/write-ops';
export * from './agents/decision-ops';
export * from './agents/skill-ops';
export * from './inbox/types';
export { hasConflictMarkers } from './inbox/parse';
export { listInbox, countInbox } from './inbox/queue';
export { showInboxItem } from './inbox/detail';
export { acceptInboxItem, rejectInboxItem, EDITED_ACCEPT_MARKER, isEditedAccept } from './inbox/decide';
export * from './history/revert-types';
export { planRevert, revertEdit } from './history/revert';
export { listUncommitted, commitUncommitted, countUncommitted } from './history/uncommitted';
export * from './agents/edit-ops';
export * from './agents/move-ops';
export * from './dream/types';
export { findDreamCandidates } from './dream/find';
export { applyDreamRun } from './dream/apply';
export { dreamCandidatesForAgent } from './dream/candidates';
export * from './dream/runs';
export { landDreamChanges, dismissDreamChanges } from './dream/land';
export { DEFAULT_STALE_DAYS, isArchivedSkill, vaultNow } from './skills/stale';
export { skillHistory, skillDiff, skillVersionText, type SkillHistory, type SkillVersion } from './skills/history';
export { restoreSkillVersion } from './skills/restore';
export { listSkills, findSkillPath, type SkillList, type SkillRow } from './skills/list';
export * from './activity/sessions';
export { checkSessionProtocol, type ProtocolCheck, type ProtocolRule } from './activity/protocol';
export * from './activity/week';
export { summarizeActivity, type ActivityOrigin, type ActivitySummary } from './activity/summary';
export { renderReport, renderWeekReport, writeReport } from './activity/report';
export * from './activity/session-detail';
export * from './eval/types';
export { parseQuestionSet, serializeQuestionSet, listQuestionSets, readQuestionSet, splitFor, questionSetPath } from './eval/questions';
export { leakOf } from './eval/leak';
export { buildCorpus } from './eval/corpus';
export { cutToBudget } from './eval/budget';
export { scoreQuestion, summarize } from './eval/metrics';
export { bootstrapMean, bootstrapDifference } from './eval/bootstrap';
export { runEvaluation, evaluateSet, MAX_K, type EvalRunOptions, type SetRun } from './eval/run';
export { kindOf, questionCount } from './eval/run-note';
export { listEvalRuns, readRunResults, type EvalRunRow } from './eval/runs';
export { defaultStrategies, strategyByName, STRATEGY_NAMES, type StrategyOptions } from './eval/strategies/index';
export {
  generateQuestions,
  writeQuestionSet,
  DEFAULT_GENERATED_SET,
  DEFAULT_MAX_QUESTIONS,
} from './eval/generate';
export { evalGrowth, type GrowthProgress, type GrowthReport } from './eval/growth';
export type { IndexWorkers } from './search/index-pool';
export type { RemoteState, SyncOptions, SyncReport, SyncStep } from './sync/types';
export { syncVault } from './sync/sync';
export { remoteState } from './sync/remote';
export { parseSyncInterval } from './sync/interval';
export { TRAILER, machineName, machineTrailer } from './git/commit-message';
export {
  syncExclusively,
  startSyncSchedule,
  type SyncRun,
  type SyncSchedule,
  type SyncScheduleOptions,
} from './schedule/sync-schedule';
export { inboxIdOf } from './inbox/parse';
