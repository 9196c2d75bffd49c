import { describe, expect, it } from 'vitest';
import { buildMatchExpression, termPhrases, tokenizeQuery } from '../../lib/vault/search/query';

describe('tokenizeQuery', () => {
  it('lowercases words and drops stopwords', () => {
    expect(tokenizeQuery('Which database did we choose for Atlas')).toEqual(['database', 'choose', 'atlas']);
  });

  it('ignores punctuation and splits contractions the way the index does', () => {
    expect(tokenizeQuery("What's the plan for Q3?")).toEqual(['plan', 'q3']);
    expect(tokenizeQuery("Why didn't we ship? We'd planned it.")).toEqual(['ship', 'planned']);
  });

  it('undoes English contractions without losing names', () => {
    expect(tokenizeQuery("What did Don decide? Don't deploy on Fridays")).toEqual(['don', 'decide', 'deploy', 'fridays']);
    expect(tokenizeQuery("We won the deal, didn't we? It won't ship.")).toEqual(['won', 'deal', 'ship']);
    expect(tokenizeQuery("Ada’s plan, can't use the CA cert, we’ve shipped")).toEqual(['ada', 'plan', 'use', 'ca', 'cert', 'shipped']);
  });

  it('splits hyphenated words and drops their stopwords', () => {
    expect(tokenizeQuery('state-of-the-art retrieval')).toEqual(['state', 'art', 'retrieval']);
  });

  it('reads quoted text as plain words', () => {
    expect(tokenizeQuery('"use postgres" or \'sqlite\'')).toEqual(['use', 'postgres', 'sqlite']);
  });

  it('turns FTS operators typed as words into ordinary terms or stopwords', () => {
    expect(tokenizeQuery('postgres AND NOT mysql OR NEAR(redis, 5)')).toEqual(['postgres', 'mysql', 'near', 'redis', '5']);
    expect(tokenizeQuery('title:atlas body:* ^start -minus +plus')).toEqual(['title', 'atlas', 'body', 'start', 'minus', 'plus']);
  });

  it('returns nothing for stopwords, punctuation and emoji alone', () => {
    expect(tokenizeQuery('what is the')).toEqual([]);
    expect(tokenizeQuery('?!"\'*:()-')).toEqual([]);
    expect(tokenizeQuery('🚀🔥 ❤️ 👩‍💻 1️⃣')).toEqual(['1']);
    expect(tokenizeQuery('')).toEqual([]);
  });

  it('keeps words around emoji', () => {
    expect(tokenizeQuery('🚀launch plan🔥')).toEqual(['launch', 'plan']);
  });

  it('keeps words in other scripts', () => {
    expect(tokenizeQuery('Какая база данных?')).toEqual(['какая', 'база', 'данных']);
    expect(tokenizeQuery('数据库迁移 计划')).toEqual(['数据库迁移', '计划']);
    expect(tokenizeQuery('Café naïve')).toEqual(['café', 'naïve']);
  });

  it('composes decomposed accents before matching', () => {
    expect(tokenizeQuery('Cafe\u0301')).toEqual(['café']);
  });

  it('drops repeated terms and keeps the first order', () => {
    expect(tokenizeQuery('postgres Postgres POSTGRES redis postgres')).toEqual(['postgres', 'redis']);
  });

  it('keeps at most 32 terms', () => {
    const words = Array.from({ length: 50 }, (_, i) => `word${i}`);
    expect(tokenizeQuery(words.join(' '))).toEqual(words.slice(0, 32));
  });
});

describe('buildMatchExpression', () => {
  it('quotes every term and ORs them', () => {
    expect(buildMatchExpression('Which database did we choose?')).toBe('"database" OR "choose"');
  });

  it('matches whole words unless asked for a prefix', () => {
    expect(buildMatchExpression('postgres migr')).toBe('"postgres" OR "migr"');
    expect(buildMatchExpression('postgres migr', { prefix: false })).toBe('"postgres" OR "migr"');
    expect(buildMatchExpression('reps')).toBe('"reps"');
  });

  it('with prefix, makes the last term a prefix while the question ends inside it', () => {
    expect(buildMatchExpression('postgres migr', { prefix: true })).toBe('"postgres" OR "migr"*');
    expect(buildMatchExpression('postgres migr ', { prefix: true })).toBe('"postgres" OR "migr"');
    expect(buildMatchExpression('postgres migr?', { prefix: true })).toBe('"postgres" OR "migr"');
  });

  it('does not make a prefix of an earlier term when the question ends in a stopword', () => {
    expect(buildMatchExpression('decided to use the', { prefix: true })).toBe('"decided" OR "use"');
  });

  it('is null when nothing is left to search for', () => {
    expect(buildMatchExpression('Who did what?')).toBeNull();
    expect(buildMatchExpression('"*"')).toBeNull();
  });

  it('never lets a quote, star or parenthesis through', () => {
    const expression = buildMatchExpression('"a" NEAR("b" c*) OR d:e - \'f\'');
    expect(expression).toBe('"near" OR "b" OR "c" OR "e" OR "f"');
  });
});

describe('termPhrases', () => {
  it('quotes each term, in the order of the question', () => {
    expect(termPhrases('Why did we pick Postgres for the ledger?')).toEqual(['"pick"', '"postgres"', '"ledger"']);
  });

  it('makes only the unfinished last term a prefix, and only when asked', () => {
    expect(termPhrases('pick postg', { prefix: true })).toEqual(['"pick"', '"postg"*']);
    expect(termPhrases('pick postg')).toEqual(['"pick"', '"postg"']);
    expect(termPhrases('pick postg.', { prefix: true })).toEqual(['"pick"', '"postg"']);
  });

  it('is empty when the question has no terms', () => {
    expect(termPhrases('what is the', { prefix: true })).toEqual([]);
  });
});
