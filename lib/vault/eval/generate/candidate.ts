/** The templates, in the order a set lists them: typed notes first, then mined ones. */
export const TEMPLATES = ['superseded-by', 'project-decision', 'owner', 'last-session', 'skill-trigger', 'two-hop', 'heading', 'link-context'] as const;
/** A template's name, as a question's `template` records it. */
export type TemplateName = (typeof TEMPLATES)[number];

/** A question a template proposes, before the leak rule, dedupe and caps. */
export interface Candidate {
  template: TemplateName;
  kind: 'template' | 'mined';
  /** Ways to ask it, best first; the first that gives nothing away is used. */
  phrasings: string[];
  gold: string[];
  answers: string[];
  /** False when rewording it word by word with a thesaurus would ask about something else (default true). */
  reword?: boolean;
}
