import type { FrontmatterData, ParsedFrontmatter } from '../notes/frontmatter';
import type { Note } from '../notes/note';

/** What an edit does, as its commit's `Lucid-Op` trailer and its changelog line name it. */
export const OPS = [
  'create',
  'update',
  'append',
  'delete',
  'accept',
  'reject',
  'revert',
  'molt',
  'archive',
  'merge',
  'init',
  'eval',
  'report',
  'sync',
] as const;
export type Op = (typeof OPS)[number];
/**
 * A note's new text with the front matter it was composed with, so the write path validates it
 * without parsing again what the composer just parsed.
 */
export interface ComposedText {
  text: string;
  frontmatter: FrontmatterData;
}

/**
 * Computes a file's new text from the note as it is under the vault lock (null when absent) and
 * its parsed front matter (parsed once, reused to edit properties line by line).
 */
export type ComposeContent = (current: Note | null, parsed?: ParsedFrontmatter) => string | null | ComposedText;

/** One file an edit changes: its new text (null deletes it) and the hash it was based on. */
export interface FileChange {
  path: string;
  /**
   * The new text (null deletes the file), or a function that computes it from the note as it is
   * under the vault lock (null when absent): a change that cannot conflict, such as an append.
   */
  content: string | null | ComposeContent;
  /** sha256 the file must still have; null: it must not exist; undefined: not checked. */
  expectedHash?: string | null;
}

/** An edit: exactly one commit with its changelog line. */
export interface EditRequest {
  actor: string;
  op: Op;
  /** The note the edit is about (commit subject and changelog link). */
  path: string;
  reason: string;
  session?: string;
  changes: FileChange[];
  /** Extra trailers after the standard ones, e.g. ['Lucid-Molt', 'triage 2->3']. */
  trailers?: [string, string][];
  /** Skip the schema check (accepting a person's own text, restoring history). */
  skipValidation?: boolean;
  /**
   * Commit the changes' paths as they are on disk now, present or deleted (`content` is not used):
   * a person's own uncommitted work committed as their edit. Only for the person at this vault;
   * every path must differ from HEAD.
   */
  asOnDisk?: boolean;
}

/** What an edit produced. */
export interface EditResult {
  editId: string;
  commit: string;
  /** New sha256 of each changed path (null when deleted). */
  hashes: Record<string, string | null>;
  /** The commit that first saved a person's uncommitted version, when there was one. */
  savedPersonCommit: string | null;
  /** The files whose uncommitted version that commit saved (empty when none). */
  savedPersonPaths: string[];
}
