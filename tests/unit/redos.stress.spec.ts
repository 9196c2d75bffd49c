import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collectRegexes, findSuperLinear, readVerdictCache } from '../../scripts/check-redos';

// The full ReDoS pass, for `npm run test:stress` (excluded from `npm test` by its `.stress.spec.ts`
// name): recheck on every distinct pattern again, none taken from scripts/redos-verdicts.json, whose
// verdicts must be the ones this pass reaches (recheck's limits are counts and a fixed seed, so the
// same pattern gets the same verdict). `npm test` checks only the patterns not in that file
// (tests/unit/redos.spec.ts).

describe('the ReDoS check, every pattern', () => {
  it('recheck finds every pattern of the checked folders linear, as scripts/redos-verdicts.json says', async () => {
    const { found, errors } = collectRegexes(path.resolve('.'));
    expect(errors).toEqual([]);
    const { verdicts } = await findSuperLinear(found);
    const cache = readVerdictCache();
    const differ = [...verdicts]
      .filter(([key, verdict]) => JSON.stringify(cache.get(key)) !== JSON.stringify(verdict))
      .map(([key, verdict]) => `${key}: ${verdict.status}`);
    // A difference: run `node --import tsx scripts/check-redos.ts --write-cache`, and read what changed.
    expect(differ).toEqual([]);
    expect([...verdicts.values()].filter((v) => v.status !== 'safe')).toEqual([]);
  }, 1_800_000);
});
