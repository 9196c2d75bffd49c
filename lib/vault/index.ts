/** Lucid's vault layer: the one way the dashboard, the CLI, the MCP server and the tests touch a vault. */
export * from './errors';
export * from './paths';
export * from './frontmatter';
export * from './schema';
export * from './links';
export * from './ids';
export * from './config';
export * from './changelog';
export * from './commit-index';
export { SearchIndex, tokenizeQuery, type SearchHit, type SearchOptions } from './search-index';
export { nodeFs, type VaultFs } from './fs';
export { openVault, Vault, buildNote, OPS, MAX_NOTE_BYTES, type Op, type Note, type NoteProblem, type EditRequest, type EditResult, type FileChange, type LintReport, type OpenVaultOptions, type VaultFile } from './vault';
export { initVault, planLayout, type InitReport } from './init';
export { memoryProtocol } from './protocol';
export { inspectLock } from './lock';
export { summarizeVault, type VaultSummary } from './stats';
