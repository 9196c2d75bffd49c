import type { Strategy } from '../types';

/** No memory at all: ranks nothing, the baseline every other strategy is measured against. */
export const noneStrategy: Strategy = {
  name: 'none',
  description: 'No memory: retrieves nothing (the baseline).',
  rank: async () => [],
};
