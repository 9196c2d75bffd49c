// STUB: Part D codes against Part S's signatures (interfaces-s27.md) until s27-sync lands; deleted at that merge.
import type { Vault } from '../vault';

/** A step of a sync, told to `onProgress` as it starts. */
export type SyncStep = 'commit-uncommitted' | 'fetch' | 'integrate' | 'push';

/** How to sync. */
export interface SyncOptions {
  /** The remote's name; default: the branch's upstream remote, else `origin`. */
  remote?: string;
  /** Push after integrating (default true). */
  push?: boolean;
  /** Told each step as it starts. */
  onProgress?: (step: SyncStep, detail?: string) => void;
}

/** What a sync did. */
export interface SyncReport {
  remote: string;
  branch: string;
  outcome: 'up-to-date' | 'fast-forward' | 'merged' | 'pushed';
  before: string;
  head: string;
  received: number;
  pushed: boolean;
  committedFirst: string[];
  conflicts: { path: string; inbox: string }[];
  refused: { path: string; why: string }[];
  warnings: { path: string; why: string }[];
}

/** STUB. */
export async function syncVault(_vault: Vault, _options?: SyncOptions): Promise<SyncReport> {
  throw new Error('not yet');
}

/** The remote's state as the last fetch and `.lucid/sync.json` left it. */
export interface RemoteState {
  remote: string | null;
  url: string | null;
  branch: string | null;
  ahead: number;
  behind: number;
  lastSync: string | null;
  lastError: string | null;
  lastReport: SyncReport | null;
}

/** STUB. */
export async function remoteState(_vault: Vault, _remote?: string): Promise<RemoteState> {
  throw new Error('not yet');
}

/** STUB. */
export function parseSyncInterval(_text: string): number {
  throw new Error('not yet');
}
