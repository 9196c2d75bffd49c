/** A reason a revert cannot be made now: a later edit changed the same lines, or a file has uncommitted changes. */
export interface RevertBlocker {
  kind: 'conflict' | 'uncommitted';
  /** The vault path in the way. */
  path: string;
  /** For a conflict: the later commits that changed this path since the reverted one, oldest first. Empty for `uncommitted`. */
  laterEdits: { edit: string | null; commit: string; actor: string; op: string | null; subject: string }[];
}

/** What a revert would do, found on a temporary index without changing HEAD, the index or any file. */
export interface RevertPlan {
  /** The ref as given (an edit id or a full sha). */
  ref: string;
  /** Full sha of the reverted commit. */
  commit: string;
  /** Its Lucid-Edit id; null for a commit Lucid did not make. */
  edit: string | null;
  op: string | null;
  actor: string;
  subject: string;
  /** A commit Lucid did not make (a person's own, obsidian-git's). */
  foreign: boolean;
  /** Vault paths the revert would change. */
  paths: string[];
  /** Unified patch of what the revert would do (the dashboard draws it with diff2html). */
  patch: string;
  /** A sentence when this commit can never be reverted (a merge, Lucid's init, changelog only, a changed create). */
  refused: string | null;
  blockers: RevertBlocker[];
  /** refused === null && blockers.length === 0. */
  ok: boolean;
  /** One sentence for the person: what the revert would do, or what is in the way. */
  message: string;
}

/** A file of the vault with changes nobody committed. */
export interface UncommittedFile {
  path: string;
  status: 'modified' | 'added' | 'deleted' | 'renamed';
  /** Unified patch from HEAD to the file on disk, secrets masked. */
  diff: string;
}
