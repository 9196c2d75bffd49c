import { VaultError } from '../../errors';
import { BASE_STRATEGIES, type Strategy } from '../types';
import { embeddingsStrategy } from './embeddings';
import { grepStrategy } from './grep';
import { keywordStrategy } from './keyword';
import { keywordAliasesStrategy } from './keyword-aliases';
import { keywordFieldsStrategy } from './keyword-fields';
import { keywordLinksStrategy } from './keyword-links';
import { keywordPrfStrategy } from './keyword-prf';
import { keywordThesaurusStrategy } from './keyword-thesaurus';
import { noneStrategy } from './none';
import { recentStrategy } from './recent';

/** What the registry needs beyond the built-in strategies: the optional embeddings endpoint. */
export interface StrategyOptions {
  /** An OpenAI-compatible embeddings endpoint (`url` includes `/v1`); without it `embeddings` is not offered. */
  embeddings?: { url: string; model: string };
}

/** The base strategies, in `BASE_STRATEGIES` order. */
const BASE: readonly Strategy[] = [noneStrategy, recentStrategy, grepStrategy, keywordStrategy, keywordLinksStrategy, keywordFieldsStrategy];
/** What closes the gap between the words people ask with and the words notes use, after the base ones. */
const EXPANSIONS: readonly Strategy[] = [keywordAliasesStrategy, keywordThesaurusStrategy, keywordPrfStrategy];

/** The optional strategy that needs an embeddings endpoint the person runs. */
const EMBEDDINGS = 'embeddings';

/** Every strategy name the registry knows: the base ones in `BASE_STRATEGIES` order, the expansions, then `embeddings`. */
export const STRATEGY_NAMES: readonly string[] = [...BASE_STRATEGIES, ...EXPANSIONS.map((s) => s.name), EMBEDDINGS];

/**
 * The strategies a run measures by default: the base ones in `BASE_STRATEGIES` order, then the
 * query expansions; `embeddings` only when an endpoint is given.
 */
export function defaultStrategies(options: StrategyOptions = {}): Strategy[] {
  return [...BASE, ...EXPANSIONS, ...(options.embeddings ? [embeddingsStrategy(options.embeddings)] : [])];
}

/**
 * The strategy of that name; an unknown name is a VaultError listing the names there are, and
 * `embeddings` without an endpoint is one saying how to give it one.
 */
export function strategyByName(name: string, options: StrategyOptions = {}): Strategy {
  const found = defaultStrategies(options).find((strategy) => strategy.name === name);
  if (found) return found;
  if (name === EMBEDDINGS) {
    throw new VaultError(
      'invalid_input',
      "The embeddings strategy needs an OpenAI-compatible embeddings endpoint you run (Ollama, llama.cpp's server, LM Studio): give its URL ending in /v1 (http://127.0.0.1:11434/v1 for Ollama; `lucid eval run --embeddings-url`) and a model.",
    );
  }
  throw new VaultError('invalid_input', `There is no strategy "${name}": use one of ${STRATEGY_NAMES.join(', ')}.`);
}
