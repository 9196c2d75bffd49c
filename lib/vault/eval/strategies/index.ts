import { VaultError } from '../../errors';
import { BASE_STRATEGIES, type Strategy } from '../types';
import { grepStrategy } from './grep';
import { keywordStrategy } from './keyword';
import { keywordFieldsStrategy } from './keyword-fields';
import { keywordLinksStrategy } from './keyword-links';
import { noneStrategy } from './none';
import { recentStrategy } from './recent';

/** What the registry needs beyond the base strategies: the optional embeddings endpoint. */
export interface StrategyOptions {
  /** An OpenAI-compatible embeddings endpoint (`url` includes `/v1`); without it `embeddings` is not offered. */
  embeddings?: { url: string; model: string };
}

const BASE: readonly Strategy[] = [noneStrategy, recentStrategy, grepStrategy, keywordStrategy, keywordLinksStrategy, keywordFieldsStrategy];

/** Every strategy name the registry knows, the base ones first (in `BASE_STRATEGIES` order). */
export const STRATEGY_NAMES: readonly string[] = [...BASE_STRATEGIES];

/**
 * The strategies a run measures by default: the base ones in `BASE_STRATEGIES` order, then the
 * query expansions; `embeddings` only when an endpoint is given.
 */
export function defaultStrategies(_options: StrategyOptions = {}): Strategy[] {
  return [...BASE];
}

/** The strategy of that name; an unknown name is a VaultError listing the names there are. */
export function strategyByName(name: string, options: StrategyOptions = {}): Strategy {
  const found = defaultStrategies(options).find((strategy) => strategy.name === name);
  if (found) return found;
  throw new VaultError('invalid_input', `There is no strategy "${name}": use one of ${STRATEGY_NAMES.join(', ')}.`);
}
