import { describe, expect, it } from 'vitest';
import { assertNoSecret, findAddedSecrets, findSecrets, maskSecrets, refusedSecret, secretRefusal } from '../../lib/vault/write/secrets';

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

// Made up, shaped like the real thing (the halves are joined so no scanner flags this file).
const HEX32 = ['9f3b2c7d', '4e1a8b6c', '0d5f2e9a', '7c3b1d4e'].join('');
const GHP = `ghp_${'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'}`;
const HF = `hf_${'aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3f'}`;
const HF_LETTERS = `hf_${'abcdefghijklmnopqrstuvwxyzABCDEFGH'}`;
const PASSWORD = 'Tr0ub4dor&3xK9';
const KEY_BODY = 'MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\nVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK';

describe("the guard's own rules, each with a near miss", () => {
  it.each([
    ['a Hugging Face token with digits', `HF_TOKEN is ${HF}`, 'a Hugging Face token', 'hf_…[masked]'],
    ['a Hugging Face token glued to a name', `MYVAR${HF}`, 'a Hugging Face token', 'MYVARhf_…[masked]'],
    ['an API KEY: <hex> line', `API KEY: ${HEX32}`, 'a credential', 'API KEY: …[masked]'],
    ['an api_key = <hex> assignment', `api_key = ${HEX32}`, 'a credential', 'api_key = …[masked]'],
    ['an apiKey: "<hex>" in JSON', `{"apiKey": "${HEX32}"}`, 'a credential', '"apiKey": "…[masked]'],
    ['a password = with a value', `db password = ${PASSWORD}`, 'a credential', 'db password = …[masked]'],
    ['a GitHub token glued to a variable name', `MY_VAR_${GHP}`, 'a GitHub token', 'MY_VAR_ghp_…[masked]'],
    ['a GitHub token glued to a word', `TOKEN${GHP}`, 'a GitHub token', 'TOKENghp_…[masked]'],
  ])('finds %s', (_name, text, kind, masked) => {
    const result = maskSecrets(text);
    expect(result.findings.map((f) => f.kind)).toEqual([kind]);
    expect(result.text).toContain(masked);
    expect(result.text).not.toContain(text.includes(HEX32) ? HEX32 : text.includes(PASSWORD) ? PASSWORD : text.slice(-20));
  });

  it.each([
    ['a git sha', 'Fixed in commit 3f2a9c1b7e4d6f8a0b2c4e6f8a1b3c5d7e9f0a2b.'],
    ['a uuid', 'session id 550e8400-e29b-41d4-a716-446655440000 in the log'],
    [
      'a sha256 in a changelog line',
      '- 2026-11-30 agent:claude-code update [[notes/plan]] sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 ^eabcdefghijkm',
    ],
    ['the word password in prose', 'Reset your password: click the link in the email, then choose a new password.'],
    ['a password line that names where it is kept', 'password: see the Atlas entry in 1Password'],
    ['a password placeholder', 'password = <your-password>'],
    ['a token placeholder', 'token: <your-token>'],
    ['an elided OpenAI key', 'OPENAI_API_KEY=sk-...'],
    ['an elided key with an ellipsis', 'api_key = 9f3b2c7d4e1a…'],
    ['a Hugging Face function name', 'call hf_hub_download_with_retries_for_the_team_models() first'],
    ['a short ghp_ word', 'the ghp_ prefix marks a classic GitHub token'],
    ['an API key heading', 'API KEY: rotate it every 90 days'],
  ])('leaves %s alone', (_name, text) => {
    expect(findSecrets(text)).toEqual([]);
  });

  it("uses secretlint's recommended preset for the formats it knows", () => {
    const gitlab = `glpat-${'AbCdEfGhIjKlMnOpQrSt'}`;
    const npm = `npm_${'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789'}`;
    expect(maskSecrets(`gitlab ${gitlab}`)).toEqual({ text: 'gitlab glpat-…[masked]', findings: [expect.objectContaining({ kind: 'a GitLab token' })] });
    expect(maskSecrets(`npm ${npm}`).findings.map((f) => f.kind)).toEqual(['an npm token']);
    expect(maskSecrets(`HF ${HF_LETTERS}`).findings.map((f) => f.kind)).toEqual(['a Hugging Face token']);
  });

  it('masks the whole value when a preset rule reports a shorter range (the AWS secret key rule)', () => {
    const value = ['wJalrXUtnFEMI', '/K7MDENG/bPxRfiCYzXAMPLEKEY'].join('');
    const result = maskSecrets(`secret_access_key = ${value} # staging`);
    expect(result.findings.map((f) => f.kind)).toEqual(['an AWS key']);
    expect(result.text).not.toContain(value.slice(-12));
    expect(result.text).toContain('# staging');
  });

  it('what it masked is not found again, and a mask cannot hide a secret next to it', () => {
    for (const text of [
      `token ${GHP} here`,
      `api_key = ${HEX32}`,
      `db password = ${PASSWORD}`,
      'Reindex against https://beacon-admin:Vr8kQ2mZt4Lp@search-staging.example.internal:9200 first.',
      'postgres://billing:s3cr3tPassw0rd@db.internal:5432/ledger',
      `-----BEGIN RSA PRIVATE KEY-----\n${['MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun'].join('')}\n-----END RSA PRIVATE KEY-----`,
    ]) {
      const once = maskSecrets(text);
      expect(once.findings.length, text).toBeGreaterThan(0);
      expect(findSecrets(once.text), once.text).toEqual([]);
    }
    expect(findSecrets(`password=…[masked]${PASSWORD}`).map((f) => f.kind)).toEqual(['a credential']);
    expect(findSecrets('postgres://billing:…[masked]s3cr3tPassw0rd@db.internal:5432/ledger')).not.toEqual([]);
  });

  it('a secretlint-disable comment in a note does not switch the guard off', () => {
    const text = `<!-- secretlint-disable -->\n${GHP}\n<!-- secretlint-enable -->`;
    expect(findSecrets(text).map((f) => f.kind)).toEqual(['a GitHub token']);
  });
});

describe('what an edit adds, read with its neighbouring lines', () => {
  it('catches a password whose value is appended after the line that names it', () => {
    const before = '# Ops\n\ndb password = \n';
    const after = `${before}\n${PASSWORD}\n`;
    expect(findSecrets(`${PASSWORD}\n`)).toEqual([]);
    expect(findAddedSecrets(before, after).map((f) => f.kind)).toEqual(['a credential']);
  });

  it('catches a private key sent as its BEGIN line, then its body and END line', () => {
    const begin = '# Keys\n\n-----BEGIN RSA PRIVATE KEY-----\n';
    expect(findAddedSecrets('# Keys\n', begin)).toEqual([]);
    const after = `${begin}\n${KEY_BODY}\n-----END RSA PRIVATE KEY-----\n`;
    expect(findAddedSecrets(begin, after).map((f) => f.kind)).toEqual(['a private key']);
  });

  it('catches the body of a key sent line by line, far below its BEGIN line', () => {
    const lines = KEY_BODY.split('\n');
    let text = '-----BEGIN RSA PRIVATE KEY-----\n';
    for (let i = 0; i < 12; i += 1) text += `${lines[0].slice(0, 40)}${String(i).padStart(2, '0')}\n`;
    expect(findAddedSecrets(text, `${text}${lines[1]}\n`).map((f) => f.kind)).toEqual(['a private key']);
    expect(findAddedSecrets(text, `${text}-----END RSA PRIVATE KEY-----\n`).map((f) => f.kind)).toEqual(['a private key']);
  });

  it('does not count a secret the note already held, even on the line next to the change', () => {
    const before = `# Ops\n\ntoken: ${GHP}\n`;
    expect(findAddedSecrets(before, `${before}\nThe deploy is on Friday.\n`)).toEqual([]);
    expect(findAddedSecrets(before, `# Ops (renamed)\n\ntoken: ${GHP}\n`)).toEqual([]);
    expect(
      findAddedSecrets(`---\nupdated: 2026-11-01\napi_key: ${HEX32}\nstatus: open\n---\n`, `---\nupdated: 2026-11-30\napi_key: ${HEX32}\nstatus: done\n---\n`),
    ).toEqual([]);
  });

  it('counts a new secret next to an old one, and offsets are in the new text', () => {
    const before = `token: ${GHP}\n`;
    const after = `${before}api_key = ${HEX32}\n`;
    const found = findAddedSecrets(before, after);
    expect(found.map((f) => after.slice(f.start, f.end))).toEqual([`api_key = ${HEX32}`]);
  });

  it('catches a secret made by removing the line between a key name and its value', () => {
    const before = `db password = \nsee below\n${PASSWORD}\n`;
    expect(findAddedSecrets(before, `db password = \n${PASSWORD}\n`).map((f) => f.kind)).toEqual(['a credential']);
  });

  it('finds a secret after many small changes, in the last one', () => {
    const lines = Array.from({ length: 60 }, (_, i) => `line ${i}`);
    const before = `${lines.join('\n')}\n`;
    const changed = lines.map((line, i) => (i % 2 === 0 ? `${line} changed` : line));
    changed[58] = `token: ${GHP}`;
    const after = `${changed.join('\n')}\n`;
    expect(findAddedSecrets(before, after).map((f) => after.slice(f.start, f.end))).toEqual([GHP]);
  });

  it('finds a secret in a line inserted among unchanged ones', () => {
    const before = '---\ntitle: Ops\nupdated: 2026-11-01\n---\n# Ops\n';
    const after = `---\ntitle: Ops\napi_key: ${HEX32}\nupdated: 2026-11-30\n---\n# Ops\n`;
    expect(findAddedSecrets(before, after).map((f) => f.kind)).toEqual(['a credential']);
  });

  it('scans the whole text of a new file', () => {
    expect(findAddedSecrets(null, `a\n\n${GHP}\n`).map((f) => f.kind)).toEqual(['a GitHub token']);
  });
});

describe('refusals never echo the secret', () => {
  it('names a path, a reason or a target with the secret masked', () => {
    expect(() => assertNoSecret('path', `notes/${GHP}.md`)).toThrow(/notes\/ghp_…\[masked\]/);
    try {
      assertNoSecret('reason', `rotated ${GHP}`);
    } catch (error) {
      expect((error as Error).message).not.toContain(GHP.slice(4));
      expect(error).toMatchObject({ code: 'forbidden' });
    }
    expect(() => assertNoSecret('path', 'notes/plan-2026.md')).not.toThrow();
  });

  it("a write-path refusal masks the secret's pieces wherever they appear", () => {
    const after = `db password = \n\n${PASSWORD}\n`;
    const error = secretRefusal('edit', 'notes/ops.md', after, findAddedSecrets('db password = \n', after));
    expect(error.message).not.toContain(PASSWORD);
    expect(JSON.stringify(error)).not.toContain(PASSWORD);
    const refused = refusedSecret(error);
    expect(refused?.where).toBe('edit');
    expect(refused?.mask(`${PASSWORD}\n`)).toBe('…[masked]\n');
    expect(refusedSecret(new Error('x'))).toBeNull();
  });
});

describe('the guard is linear on 1 MB of adversarial input', () => {
  const MB = 1_000_000;
  it.each([
    ['a-a-a-…', 'a-'.repeat(MB / 2)],
    ['blank lines', '\n'.repeat(MB)],
    ['equals signs', '='.repeat(MB)],
    ['one long word', 'a'.repeat(MB)],
    ['key names without values', 'password='.repeat(MB / 9)],
    ['key names with spaces', 'api key: '.repeat(MB / 9)],
    ['scheme-like runs', 'a+b.c-'.repeat(MB / 6)],
    ['URL user parts without a password', 'x://a:'.repeat(MB / 6)],
    ['JWT-like runs without the dots', 'eyJaaaaaaaaaaa'.repeat(MB / 14)],
    ['JWT-like runs of two parts', 'eyJaaaaaaaaaaa.eyJaaaaaaaaaaa. '.repeat(MB / 31)],
    ['BEGIN lines without a key', '-----BEGIN '.repeat(MB / 11)],
    ['quotes and colons', '"a":'.repeat(MB / 4)],
    ['underscored words', 'aa_'.repeat(MB / 3)],
    ['a token prefix then a long run', `ghp_${'a'.repeat(MB)}`],
  ])('finds nothing in %s', (_name, text) => {
    expect(findSecrets(text)).toEqual([]);
    expect(findAddedSecrets(text.slice(0, 1000), text)).toEqual([]);
  });

  it('finds every one of many real-looking values in a 1 MB note', () => {
    const line = `api_key = ${HEX32}\n`;
    const text = line.repeat(Math.floor(MB / line.length));
    const found = findSecrets(text);
    expect(found).toHaveLength(Math.floor(MB / line.length));
    expect(maskSecrets(text).text).not.toContain(HEX32);
  });
});
