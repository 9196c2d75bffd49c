import { describe, expect, it } from 'vitest';
import { leakOf } from '../../lib/vault';

const postgres = [{ title: 'Use Postgres', aliases: ['PG choice'] }];

describe('leakOf: questions that give their answer away are refused, and only those', () => {
  it('refuses a question holding the gold title, whatever its case and punctuation', () => {
    expect(leakOf('Why did we decide to use postgres?', postgres, [])).toBe('contains the title "Use Postgres"');
    expect(leakOf('USE-POSTGRES: why?', postgres, [])).toBe('contains the title "Use Postgres"');
    expect(leakOf('why "use   postgres"', postgres, [])).toBe('contains the title "Use Postgres"');
  });

  it('refuses a question holding an alias', () => {
    expect(leakOf('What was the pg choice about?', postgres, [])).toBe('contains the alias "PG choice"');
  });

  it('refuses a question holding a gold answer, as whole words', () => {
    expect(leakOf('Which database replaced MySQL with Postgres?', [{ title: 'Database pick', aliases: [] }], ['Postgres'])).toBe(
      'contains the answer "Postgres"',
    );
    expect(leakOf("Who is Ada's manager?", [{ title: 'Team', aliases: [] }], ['Ada'])).toBe('contains the answer "Ada"');
    expect(leakOf('Did we drop postgres?', [{ title: 'Database pick', aliases: [] }], ['Postgres'])).toBe('contains the answer "Postgres"');
  });

  it('folds diacritics both ways', () => {
    expect(leakOf('Who runs the cafe project?', [{ title: 'Café', aliases: [] }], [])).toBe('contains the title "Café"');
    expect(leakOf('Who owns Zoë?', [{ title: 'Project', aliases: [] }], ['Zoe'])).toBe('contains the answer "Zoe"');
  });

  it('accepts words that only contain the name inside them', () => {
    expect(leakOf('When did we start?', [{ title: 'Art', aliases: [] }], [])).toBeNull();
    expect(leakOf('Which postgresql setting was chosen?', postgres, ['Postgres'])).toBeNull();
    expect(leakOf('Who is the owner of the partner programme?', [{ title: 'Partner Program', aliases: [] }], [])).toBeNull();
    expect(leakOf('Did the user pick something?', postgres, [])).toBeNull();
  });

  it('accepts a question with only part of a multi-word title', () => {
    expect(leakOf('Why postgres and not MySQL?', postgres, [])).toBeNull();
    expect(leakOf('Which database do we use?', postgres, [])).toBeNull();
  });

  it('never counts names shorter than three characters or made only of stopwords', () => {
    expect(leakOf('Is a decision needed here?', [{ title: 'A', aliases: ['Q3'] }], ['no'])).toBeNull();
    expect(leakOf('What about it?', [{ title: 'What about it', aliases: [] }], [])).toBeNull();
    expect(leakOf('Who owns Atlas?', [{ title: 'Q3', aliases: [] }], ['Ada'])).toBeNull();
    expect(leakOf('Who owns ada?', [{ title: 'Q3', aliases: [] }], ['Ada'])).toBe('contains the answer "Ada"');
  });

  it('checks every gold note and answer, and says which one leaked', () => {
    const gold = [
      { title: 'Atlas', aliases: [] },
      { title: 'Jane Doe', aliases: ['JD'] },
    ];
    expect(leakOf('Who leads the project jane doe started?', gold, [])).toBe('contains the title "Jane Doe"');
    expect(leakOf('Who leads the project?', gold, ['Berlin', 'Lisbon'])).toBeNull();
    expect(leakOf('Is it in lisbon?', gold, ['Berlin', 'Lisbon'])).toBe('contains the answer "Lisbon"');
  });
});
