import { VaultError } from '../../errors';
import { BASE_STRATEGIES, type Strategy } from '../types';

/** What the registry needs beyond the base strategies: the optional embeddings endpoint. */
export interface StrategyOptions {
  /** An OpenAI-compatible embeddings endpoint (`url` includes `/v1`); without it `embeddings` is not offered. */
  embeddings?: { url: string; model: string };
}

/** Every strategy name the registry knows, the base ones first. */
export const STRATEGY_NAMES: readonly string[] = [...BASE_STRATEGIES];

/**
 * The strategies a run measures by default: the base ones in `BASE_STRATEGIES` order, then the
 * query expansions; `embeddings` only when an endpoint is given.
 */
export function defaultStrategies(_options: StrategyOptions = {}): Strategy[] {
  throw new VaultError('io_error', 'The retrieval strategies are not built yet.');
}

/** The strategy of that name; an unknown name is a VaultError listing the names there are. */
export function strategyByName(name: string, _options: StrategyOptions = {}): Strategy {
  throw new VaultError('invalid_input', `Unknown strategy "${name}": use one of ${STRATEGY_NAMES.join(', ')}.`);
}
