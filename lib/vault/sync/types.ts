/** The sync engine's public shapes (see sync.ts): what a sync is told, what it reports, what the remote looks like. */

/** The steps of a sync, in order, as {@link SyncOptions.onProgress} is told them. */
export type SyncStep = 'commit-uncommitted' | 'fetch' | 'integrate' | 'push';

/** How to sync a vault with its remote. */
export interface SyncOptions {
  /** The remote's name; default: the branch's upstream remote, else `origin`. */
  remote?: string;
  /** Push after integrating (default true). */
  push?: boolean;
  /** Told each step as it starts (the CLI prints them on stderr; the dashboard shows them). */
  onProgress?: (step: SyncStep, detail?: string) => void;
}

/** What one sync did. */
export interface SyncReport {
  remote: string;
  branch: string;
  /** What happened to the local branch (`pushed`: nothing came in, local commits went out). */
  outcome: 'up-to-date' | 'fast-forward' | 'merged' | 'pushed';
  /** HEAD before the sync. */
  before: string;
  /** HEAD after the sync. */
  head: string;
  /** Commits brought in from the remote. */
  received: number;
  pushed: boolean;
  /** A person's uncommitted paths, committed as theirs before integrating. */
  committedFirst: string[];
  /** Notes both sides changed: the remote's version kept, the local one in the inbox item. */
  conflicts: { path: string; inbox: string }[];
  /** Remote entries not taken (`.lucid/` entries). */
  refused: { path: string; why: string }[];
  /** Taken but reported: symlink, oversized note, case collision, front matter that fails the schema. */
  warnings: { path: string; why: string }[];
}

/** The vault's remote as of the last fetch, and how the last sync went. */
export interface RemoteState {
  /** null: the vault has no remote (the dashboard says how to add one). */
  remote: string | null;
  /** The remote's URL, credentials stripped (https://user:pass@host -> https://host). */
  url: string | null;
  branch: string | null;
  /** Local commits not on the remote-tracking ref (as of the last fetch). */
  ahead: number;
  /** Remote commits not in the local branch (as of the last fetch). */
  behind: number;
  /** ISO time of the last successful sync. */
  lastSync: string | null;
  /** The last failed sync's message (cleared by a success). */
  lastError: string | null;
  lastReport: SyncReport | null;
}
