import { tokenizeQuery } from '../../search/query';
import { loadWordNet, type Thesaurus } from '../thesaurus';
import type { Strategy } from '../types';
import { corpusTerms, searchExpanded } from './expansion';

/**
 * Synonyms added per question term: the first one some note uses (commonest sense first). A synonym
 * no note uses cannot match; more than one drifted off the question's meaning without finding more
 * (measured on the fixture vaults' dev questions).
 */
const SYNONYMS_PER_TERM = 1;

/**
 * A `keyword-thesaurus` strategy over any thesaurus: the question searched as asked and with the
 * first synonyms of each of its terms that some note uses, the question's own words counting more
 * (see `searchExpanded`). It names its thesaurus, so it is never judged on questions paraphrased
 * with it.
 */
function thesaurusStrategy(thesaurus: () => Thesaurus): Strategy {
  return {
    name: 'keyword-thesaurus',
    description: "BM25 with the question's words expanded by their synonyms (WordNet) that the vault uses, the question's own words counting more.",
    thesaurus: 'wordnet',
    async prepare(context) {
      corpusTerms(context.corpus);
    },
    async rank(question, context) {
      const words = thesaurus();
      const vocabulary = corpusTerms(context.corpus);
      const added = tokenizeQuery(question).flatMap((term) =>
        words
          .synonyms(term)
          .filter((synonym) => vocabulary.has(synonym))
          .slice(0, SYNONYMS_PER_TERM),
      );
      return searchExpanded(question, added, context);
    },
  };
}

/**
 * `keyword-thesaurus`: BM25 with WordNet synonyms of the question's terms. WordNet is read on the
 * first question, not when the strategy is made.
 */
export const keywordThesaurusStrategy: Strategy = thesaurusStrategy(() => loadWordNet());
