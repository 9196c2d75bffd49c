import type { ProposalAction } from '../notes/schema';

/** One proposal waiting in the inbox, as the queue lists it (VAULT-FORMAT, "Inbox"). */
export interface InboxItem {
  /** The inbox note's file name without `.md`; its path is `<inbox folder>/<id>.md`. */
  id: string;
  path: string;
  /** `agent:<slug>` or `human:<name>`. */
  proposedBy: string;
  /** The session id of the note's `session` link, else null. */
  session: string | null;
  action: ProposalAction;
  /** The vault path the proposal is about. */
  target: string;
  reason: string;
  confidence: number | null;
  /** `possible-secret`, `conflict`, another flag, or null. */
  flag: string | null;
  /** ISO time with offset, as written in the note. */
  created: string;
  baseBlob: string | null;
  /** The short text for the person: the body without the fenced block. */
  explanation: string;
  /** The fenced block's content (null for delete, or when the block is missing). */
  proposal: string | null;
  /**
   * Why the item cannot be applied as it is (front matter that does not parse, no block, an unknown
   * action, a target outside the vault ...), else null. Such items are still listed, and can be rejected.
   */
  problem: string | null;
}

/** What the queue may be narrowed to; each field compared exactly (`agent` also as a bare slug). */
export interface InboxFilter {
  agent?: string;
  flag?: string;
  action?: string;
}

/** One item with what accepting it would do to its target. */
export interface InboxItemDetail extends InboxItem {
  /** The target's text now (null when absent). */
  current: string | null;
  /** sha256 of the target's bytes now: pass it back to accept as `expectedTargetHash`. */
  currentHash: string | null;
  /** The target's text at `base_blob` (null without base_blob, or when git lacks the blob). */
  base: string | null;
  /** base_blob is set and the target's blob now differs from it. */
  targetChanged: boolean;
  /**
   * What a plain accept writes to the target: the proposal for create and update, the current text
   * with the proposal appended for append, null for delete (and for an item with a problem).
   */
  result: string | null;
  /** A unified patch from the target's current text to `result` (both file names = target); for delete, everything removed. */
  diff: string;
  /**
   * When targetChanged: the three-way merge of base, current (the person's side) and the proposal,
   * with conflict markers in `text` when `conflicts` > 0; personDiff is base->current, agentDiff base->proposal.
   */
  merge: { text: string; conflicts: number; personDiff: string; agentDiff: string } | null;
}

/** A person's decision to accept an item. */
export interface AcceptInput {
  id: string;
  /** The person's edited or merged text for the target (refused while it holds conflict markers). */
  text?: string;
  /** sha256 the target must still have (the detail's currentHash; null: the target must not exist). */
  expectedTargetHash?: string | null;
  reason?: string;
}

/** What an accept committed. */
export interface AcceptResult {
  editId: string;
  commit: string;
  target: string;
  /** True when the person's own text was applied instead of the proposal. */
  edited: boolean;
}

/** A person's decision to reject an item. */
export interface RejectInput {
  id: string;
  reason?: string;
}

/** What a reject committed. */
export interface RejectResult {
  editId: string;
  commit: string;
}
