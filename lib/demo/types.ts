/** How to make a demo vault. */
export interface GenerateDemoOptions {
  /** The folder to fill: new, empty, or an earlier demo (which is replaced). */
  dir: string;
  /** The environment git runs with (the CLI passes its own environment). */
  env: Record<string, string | undefined>;
  /** The last day of the history (local time); only its date counts. */
  anchor: Date;
  /** The person's name when git has no user.name (LUCID_USER, else the OS user). */
  fallbackUser?: string;
}

/** Where the demo's notable notes and edits are, for tours, docs and end-to-end tests. */
export interface DemoHighlights {
  /** The decision that was replaced, and the one that replaced it (one commit). */
  supersededDecision: string;
  replacingDecision: string;
  /** Two skills that say the same thing in other words. */
  duplicateSkills: [string, string];
  /** A skill no session has used, last updated months before the history starts. */
  staleSkill: string;
  /** The skill with the most molts. */
  moltedSkill: string;
  /** An update proposal whose target a person changed after it was made (its base_blob is stale). */
  staleInboxItem: string;
  /** An agent's wrong edit, worth reverting. */
  badEdit: { editId: string; commit: string; path: string };
  /** A note whose body holds pasted `<script>`, `onerror=` and `<iframe>` markup. */
  xssNote: string;
  /** A note whose name has spaces and an emoji. */
  emojiNote: string;
  /** Notes whose names have `%` and non-Latin letters. */
  unusualNames: string[];
}

/** What {@link generateDemoVault} made. */
export interface DemoReport {
  root: string;
  /** The anchor date, `YYYY-MM-DD`. */
  anchor: string;
  commits: number;
  notes: number;
  sessions: number;
  inbox: number;
  highlights: DemoHighlights;
}
