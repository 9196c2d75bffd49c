/** One pair of skills that look like the same procedure, with why the finder thinks so. */
export interface DreamDuplicate {
  /** vault path of the survivor-to-be (the one with more molts, else the older, else the first by path) */
  a: string;
  /** vault path of the skill that would be merged into `a` */
  b: string;
  /** similarity in [0, 1] */
  score: number;
  /** short sentences: shared steps, trigger overlap, name tokens */
  evidence: string[];
}

/** A skill no session's `skills_used` named for `days` days (measured from the vault's clock). */
export interface DreamStale {
  skill: string;
  /** date (YYYY-MM-DD) of the last session that used it, null when none ever did */
  lastUsed: string | null;
  days: number;
}

/** A skill field that breaks the contract, with the front-matter change that fixes it (null when a person must decide). */
export interface DreamInconsistent {
  skill: string;
  field: string;
  problem: string;
  fix: Record<string, unknown> | null;
}

/** What the dream pass found; it changes nothing. Every `skill` is a vault path. */
export interface DreamFindings {
  skills: number;
  duplicates: DreamDuplicate[];
  stale: DreamStale[];
  inconsistent: DreamInconsistent[];
}

/** Progress of a long pass: `done` of `total` units of `phase`. */
export interface DreamProgress {
  phase: 'read' | 'history' | 'compare' | 'apply' | 'land';
  done: number;
  total: number;
}

/** Options of findDreamCandidates. */
export interface FindDreamOptions {
  /** a skill unused for this many days is stale (default DEFAULT_STALE_DAYS) */
  staleDays?: number;
  /** the vault's clock; default the newest commit's time */
  now?: Date;
  onProgress?: (progress: DreamProgress) => void;
}

/** One commit of a dream branch. */
export interface DreamChange {
  sha: string;
  op: 'merge' | 'archive' | 'molt';
  /** the paths the commit changed, changelog excluded */
  paths: string[];
  reason: string;
}

/** Options of applyDreamRun. */
export interface ApplyDreamOptions {
  now?: Date;
  /** test hook, awaited before the n-th change (0-based) is committed on the branch */
  beforeCommit?: (n: number) => Promise<void>;
  /** told after each finding is made a commit or left out (phase `apply`, `done` of `total` changes) */
  onProgress?: (progress: DreamProgress) => void;
}

/** A dream run written as the branch `dream/<runId>`. */
export interface DreamRun {
  runId: string;
  /** `dream/<runId>` (the ref is refs/heads/dream/<runId>) */
  branch: string;
  /** the commit the branch was built on (the current branch's HEAD then) */
  base: string;
  changes: DreamChange[];
  /** findings that made no commit, and why (a note in the way, a skill gone, a version to fix by hand) */
  skipped: { op: DreamChange['op']; reason: string; why: string }[];
}

/** The actor of every dream-pass commit. */
export const DREAM_ACTOR = 'agent:dream';
/** The trailer naming a commit's dream run. */
export const DREAM_TRAILER = 'Lucid-Dream';
/** The shape of a run id the review takes (Lucid makes `YYYYMMDD-HHMMSS-<4 base32>`): never a ref git would read as an option or a range. */
export const DREAM_RUN_ID_PATTERN = /^[0-9a-z][0-9a-z-]{0,63}$/;
/** Prefix of dream branches under refs/heads/. */
export const DREAM_BRANCH_PREFIX = 'dream/';
