import { createHash } from 'node:crypto';
import type { Vault } from '../../vault';
import { foldText } from '../leak';
import { splitFor } from '../questions';
import { loadWordNet, type Thesaurus } from '../thesaurus';
import type { EvalQuestion } from '../types';
import { TEMPLATES, type Candidate, type TemplateName } from './candidate';
import { minedCandidates } from './mined';
import { phraseCandidate } from './refusal';
import { loadGenerateSource, type GenerateSource } from './source';
import { TYPED_TEMPLATES } from './templates';

export { writeQuestionSet } from './write';

/** The set name `lucid eval generate` writes when none is given. */
export const DEFAULT_GENERATED_SET = 'generated';
/** Questions a generated set holds at most, unless asked for another number. */
export const DEFAULT_MAX_QUESTIONS = 200;
/** Questions one template may ask about the same gold note. */
const PER_GOLD = 2;

/** How to generate a set. */
export interface GenerateOptions {
  /** The set's name (reported back; the questions and their ids do not depend on it). */
  set?: string;
  /**
   * The thesaurus a question that would give its answer away is reworded with before it is
   * refused (its `paraphrased_with` records the thesaurus's name), and that tells everyday words
   * (a heading of one, "Setup", asks nothing) from names and terms. Default WordNet; null: none.
   */
  thesaurus?: Thesaurus | null;
  /** Questions at most (default {@link DEFAULT_MAX_QUESTIONS}), shared out between templates. */
  max?: number;
  /** Questions one template may contribute at most (default half of `max`, at least 10). */
  perTemplate?: number;
}

/** A question the leak rule refused: its best wording and why it gives the answer away. */
export interface RefusedQuestion {
  question: string;
  why: string;
  template: string;
}

/** What {@link generateQuestions} made. */
export interface GeneratedSet {
  set: string;
  questions: EvalQuestion[];
  refused: RefusedQuestion[];
  /** Questions kept, by template (every template listed, 0 when it made none). */
  byTemplate: Record<string, number>;
  /** Questions that passed the leak rule but were left out by the caps (per template, per note, `max`). */
  capped: number;
  /** Notes left out because they are not text or too large to parse. */
  skipped: string[];
  /** Notes whose front matter does not parse: asked about from their headings and links only. */
  unparsed: string[];
}

function wordNetOrNull(): Thesaurus | null {
  try {
    return loadWordNet();
  } catch {
    return null;
  }
}

/** A question id: the template and a hash of what it asks, so the same vault gives the same ids. */
function questionId(template: string, gold: string[], question: string): string {
  return `${template}-${createHash('sha256')
    .update(`${template}\n${gold.join('\n')}\n${question}`)
    .digest('hex')
    .slice(0, 10)}`;
}

/** Every template's candidates; a template that fails on an odd vault gives none rather than failing the set. */
function allCandidates(source: GenerateSource, thesaurus: Thesaurus | null): Candidate[] {
  const out: Candidate[] = [];
  for (const make of [...TYPED_TEMPLATES, (s: GenerateSource) => minedCandidates(s, thesaurus)]) {
    try {
      out.push(...make(source));
    } catch {
      // an odd note the templates did not foresee: the other templates still run
    }
  }
  return out;
}

/**
 * Derives a question set from a vault, with no LLM: templates over Lucid's typed notes (what
 * replaced a decision, what a project decided about a topic, who owns a project, which session
 * last worked on something, which skill applies when, and person → project → decision) and
 * questions mined from the headings and link contexts of other notes. A question that contains
 * its gold note's title, an alias or a gold answer is reworded or refused (`leakOf`). Duplicates
 * are dropped, each template asks at most two questions about one note, and templates share
 * `max` in turn so no kind swamps the set. Splits come from `splitFor`. Deterministic: the same
 * vault gives the same set, byte for byte. Notes whose front matter does not parse (an unfilled
 * template) are read as search reads them, for the mined questions only.
 */
export async function generateQuestions(vault: Vault, options: GenerateOptions = {}): Promise<GeneratedSet> {
  const max = Math.max(1, Math.floor(options.max ?? DEFAULT_MAX_QUESTIONS));
  const perTemplate = Math.max(1, Math.floor(options.perTemplate ?? Math.max(10, Math.ceil(max / 2))));
  const thesaurus = options.thesaurus === undefined ? wordNetOrNull() : options.thesaurus;
  const source = await loadGenerateSource(vault);

  const refused: RefusedQuestion[] = [];
  const byTemplateAccepted = new Map<TemplateName, EvalQuestion[]>();
  for (const candidate of allCandidates(source, thesaurus)) {
    const gold = candidate.gold.map((p) => source.byPath.get(p)).filter((n) => n !== undefined);
    const result = phraseCandidate(candidate, gold, thesaurus);
    if ('refused' in result) {
      refused.push({ question: candidate.phrasings[0], why: result.refused, template: candidate.template });
      continue;
    }
    const question: EvalQuestion = {
      id: questionId(candidate.template, candidate.gold, result.question),
      question: result.question,
      gold: candidate.gold,
      answers: candidate.answers,
      kind: candidate.kind,
      split: 'dev',
      template: candidate.template,
      ...(result.paraphrasedWith ? { paraphrased_with: result.paraphrasedWith } : {}),
    };
    byTemplateAccepted.set(candidate.template, [...(byTemplateAccepted.get(candidate.template) ?? []), question]);
  }

  // Within a template, questions are taken in the order of their ids (a hash): spread over the vault.
  const seen = new Set<string>();
  const pools: EvalQuestion[][] = [];
  let accepted = 0;
  for (const template of TEMPLATES) {
    const perGold = new Map<string, number>();
    const pool: EvalQuestion[] = [];
    for (const q of (byTemplateAccepted.get(template) ?? []).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
      const key = foldText(q.question);
      const goldKey = q.gold.join('\n');
      if (seen.has(key)) continue;
      seen.add(key);
      accepted += 1;
      if ((perGold.get(goldKey) ?? 0) >= PER_GOLD) continue;
      perGold.set(goldKey, (perGold.get(goldKey) ?? 0) + 1);
      if (pool.length < perTemplate) pool.push(q);
    }
    pools.push(pool);
  }
  const chosen: EvalQuestion[] = [];
  for (let i = 0; chosen.length < max && pools.some((p) => p.length > i); i += 1) {
    for (const pool of pools) if (i < pool.length && chosen.length < max) chosen.push(pool[i]);
  }

  const order = (q: EvalQuestion) => TEMPLATES.indexOf(q.template as TemplateName);
  const questions = chosen
    .map((q) => ({ ...q, split: splitFor(q.id) }))
    .sort((a, b) => order(a) - order(b) || compare(a.gold.join('\n'), b.gold.join('\n')) || compare(a.question, b.question));
  const byTemplate: Record<string, number> = {};
  for (const template of TEMPLATES) byTemplate[template] = 0;
  for (const q of questions) byTemplate[q.template as string] += 1;
  return {
    set: options.set ?? DEFAULT_GENERATED_SET,
    questions,
    refused,
    byTemplate,
    capped: accepted - questions.length,
    skipped: source.skipped,
    unparsed: source.unparsed,
  };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
