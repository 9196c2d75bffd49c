import { describe, expect, it } from 'vitest';
import { findSecrets, maskSecrets } from '../../lib/vault/write/secrets';

describe('the secrets guard', () => {
  it.each([
    ['an AWS access key', 'aws key AKIAIOSFODNN7EXAMPLE in the config', 'AKIA…[masked]'],
    ['a GitHub token', 'token ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8 here', 'ghp_…[masked]'],
    ['a GitHub token', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH', 'github_pat_…[masked]'],
    ['an OpenAI API key', 'OPENAI sk-proj-4fGh7Jk9Lm2Np5Qr8St1Uv3Wx6Yz0Ab', 'sk-…[masked]'],
    ['an Anthropic API key', 'ANTHROPIC_API_KEY=sk-ant-api03-Xy7Qw2Er5Ty8Ui1Op4As6Df9Gh3Jk0Lz', 'sk-ant-…[masked]'],
    ['a Slack token', 'xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx', 'xoxb-…[masked]'],
    ['a credential', 'api_key = "Zx81kLmQ2vN7pR4tY6uW9aB3cD5eF0gH"', 'api_key = "…[masked]'],
    ['a credential', 'password: Tr0ub4dor&3xK9mQ2vL7pW', 'password: …[masked]'],
    ['a password in a URL', 'postgres://billing:s3cr3tPassw0rd@db.internal:5432/ledger', 'postgres://billing:…[masked]@'],
  ])('finds %s and masks it to its prefix', (kind, text, masked) => {
    const result = maskSecrets(text);
    expect(result.findings.map((f) => f.kind)).toEqual([kind]);
    expect(result.text).toContain(masked);
  });

  it('masks a whole private key block', () => {
    const key =
      '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACBQ\n-----END OPENSSH PRIVATE KEY-----';
    const result = maskSecrets(`before\n${key}\nafter`);
    expect(result.findings.map((f) => f.kind)).toEqual(['a private key']);
    expect(result.text).toBe('before\n-----BEGIN OPENSSH PRIVATE KEY-----…[masked]\nafter');
  });

  it('leaves ordinary writing, slugs, hashes of notes and placeholders alone', () => {
    for (const text of [
      'We decided to use Postgres for the ledger; see [[decisions/atlas-use-postgres]].',
      'The task-management-for-the-whole-team-2024 project.',
      'api_key = <your-api-key>',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell-style placeholder, on purpose
      'password: ${DB_PASSWORD}',
      'token: xxxxxxxxxxxxxxxxxxxxxxxx',
      'expected_hash 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
      'postgres://user:password@localhost/db',
      'sk-learn is a library; risk-assessment-of-the-whole-plan',
    ]) {
      expect(findSecrets(text), text).toEqual([]);
    }
  });
});
