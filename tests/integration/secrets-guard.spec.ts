import { afterEach, describe, expect, it } from 'vitest';
import { isVaultError } from '../../lib/vault/errors';
import { proposeToInbox, startSession, writeNote } from '../../lib/vault/index';
import type { Vault } from '../../lib/vault/vault';
import { makeTempVault, type TempVault } from '../support/temp-vault';

// Each secret is made up and shaped like the real thing; the halves are joined so that no scanner
// flags this file. Every test checks git's whole history, not only the files.
const HEX32 = ['9f3b2c7d', '4e1a8b6c', '0d5f2e9a', '7c3b1d4e'].join('');
const GHP = `ghp_${'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'}`;
const HF = `hf_${'aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3f'}`;
const PASSWORD = 'Tr0ub4dor&3xK9';
const KEY_BODY = 'MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\nVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK';
const NOTE = 'notes/ops.md';
const FILES = { [NOTE]: '---\ntitle: Ops\n---\n# Ops\n\nHow we run things.\n' };

const vaults: TempVault[] = [];
const opened: Vault[] = [];
afterEach(() => {
  for (const vault of opened.splice(0)) vault.close();
  for (const tv of vaults.splice(0)) tv.cleanup();
});

async function setup(files: Record<string, string> = FILES) {
  const tv = makeTempVault(files);
  vaults.push(tv);
  const vault = await tv.open();
  opened.push(vault);
  const { session } = await startSession(vault, { agent: 'claude-code', task: 'write down how we run things' });
  return { tv, vault, session };
}

/** Everything git holds: every commit's message and patch, on every ref. */
function history(tv: TempVault): string {
  return tv.git(['log', '-p', '--all', '--format=%B']);
}

async function refusal(promise: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await promise;
  } catch (error) {
    if (isVaultError(error)) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('set_fields: a value is scanned with its key name, and the key itself', () => {
  it('api_key: <32 hex> set as a field goes to the inbox, masked, as `api_key = <hex>` in content does', async () => {
    const { tv, vault, session } = await setup();
    const before = tv.read(NOTE);
    const result = await writeNote(vault, { session, path: NOTE, mode: 'set_fields', fields: { api_key: HEX32 }, reason: 'the key' });
    expect(result.status).toBe('possible_secret');
    expect(result.message).not.toContain(HEX32);
    expect(tv.read(NOTE)).toBe(before);
    expect(tv.read(result.inbox_path ?? '')).toContain('api_key: …[masked]');
    const listed = await writeNote(vault, { session, path: NOTE, mode: 'set_fields', fields: { keys: ['staging', HEX32] }, reason: 'keys' });
    expect(listed.status).toBe('written');
    expect(history(tv)).toContain(HEX32);
  });

  it('a field whose name is a token goes to the inbox with the name masked', async () => {
    const { tv, vault, session } = await setup();
    const result = await writeNote(vault, { session, path: NOTE, mode: 'set_fields', fields: { [GHP]: 'yes' }, reason: 'mark it' });
    expect(result.status).toBe('possible_secret');
    expect(tv.read(result.inbox_path ?? '')).toContain('ghp_…[masked]');
    expect(history(tv)).not.toContain(GHP.slice(4));
  });
});

describe('paths, reasons and inbox targets', () => {
  it('a token in a note path is refused before anything is filed: it never reaches a commit subject or the changelog', async () => {
    const { tv, vault, session } = await setup();
    const commits = tv.commitCount();
    const error = await refusal(writeNote(vault, { session, path: `notes/${GHP}.md`, mode: 'create', content: '# Token\n', reason: 'x' }));
    expect(error.code).toBe('forbidden');
    expect(error.message).toContain('notes/ghp_…[masked].md');
    expect(error.message).not.toContain(GHP.slice(4));
    expect(tv.commitCount()).toBe(commits);
    expect(history(tv)).not.toContain(GHP.slice(4));
    expect(tv.exists('changelog.md') ? tv.read('changelog.md') : '').not.toContain(GHP.slice(4));
  });

  it('a token in an inbox target is refused; a token in a reason is masked in the commit and the changelog', async () => {
    const { tv, vault, session } = await setup();
    const error = await refusal(proposeToInbox(vault, { session, target: `notes/${GHP}.md`, action: 'create', content: '# x\n', reason: 'x' }));
    expect(error.code).toBe('forbidden');
    expect(error.message).not.toContain(GHP.slice(4));
    const written = await writeNote(vault, { session, path: NOTE, mode: 'append', content: 'Rotated the token.', reason: `rotated ${GHP}` });
    expect(written.status).toBe('written');
    expect(tv.git(['log', '-1', '--format=%B'])).toContain('ghp_…[masked]');
    expect(history(tv)).not.toContain(GHP.slice(4));
  });

  it('the write path itself refuses a path, a reason or a trailer that holds a secret, for any caller', async () => {
    const { tv, vault } = await setup();
    const commits = tv.commitCount();
    const edit = (over: Record<string, unknown>) =>
      refusal(vault.edit({ actor: 'agent:claude-code', op: 'update', path: NOTE, reason: 'x', changes: [{ path: NOTE, content: '# Ops\n' }], ...over }));
    expect((await edit({ path: `notes/${GHP}.md` })).code).toBe('forbidden');
    expect((await edit({ reason: `key ${GHP}` })).code).toBe('forbidden');
    expect((await edit({ trailers: [['Lucid-Note', `api_key = ${HEX32}`]] })).code).toBe('forbidden');
    expect(tv.commitCount()).toBe(commits);
  });
});

describe('a secret split across two appends', () => {
  it('`db password = ` then the value: the second append goes to the inbox with the value masked', async () => {
    const { tv, vault, session } = await setup();
    const first = await writeNote(vault, { session, path: NOTE, mode: 'append', content: 'db password = ', reason: 'db' });
    expect(first.status).toBe('written');
    const second = await writeNote(vault, { session, path: NOTE, mode: 'append', content: PASSWORD, reason: 'the value' });
    expect(second.status).toBe('possible_secret');
    expect(second.message).not.toContain(PASSWORD);
    expect(tv.read(second.inbox_path ?? '')).not.toContain(PASSWORD);
    expect(tv.read(NOTE)).not.toContain(PASSWORD);
    expect(history(tv)).not.toContain(PASSWORD);
    expect(tv.git(['status', '--porcelain'])).toBe('');
  });

  it('a private key sent as its BEGIN line, then its body and END line: the body never reaches git', async () => {
    const { tv, vault, session } = await setup();
    const begin = await writeNote(vault, { session, path: NOTE, mode: 'append', content: '-----BEGIN RSA PRIVATE KEY-----', reason: 'key' });
    expect(begin.status).toBe('written');
    const body = await writeNote(vault, { session, path: NOTE, mode: 'append', content: `${KEY_BODY}\n-----END RSA PRIVATE KEY-----`, reason: 'key' });
    expect(body.status).toBe('possible_secret');
    expect(body.message).toMatch(/a private key/);
    const inbox = tv.read(body.inbox_path ?? '');
    for (const line of KEY_BODY.split('\n')) {
      expect(inbox).not.toContain(line);
      expect(history(tv)).not.toContain(line);
    }
  });
});

describe('shapes the guard missed', () => {
  it.each([
    ['a Hugging Face token', `pull the model with ${HF}`, HF.slice(3)],
    ['an API KEY: <hex> line', `API KEY: ${HEX32}`, HEX32],
    ['a token glued to a variable name', `export MY_VAR_${GHP}`, GHP.slice(4)],
  ])('%s in an append goes to the inbox, masked', async (_name, content, secret) => {
    const { tv, vault, session } = await setup();
    const result = await writeNote(vault, { session, path: NOTE, mode: 'append', content, reason: 'config' });
    expect(result.status).toBe('possible_secret');
    expect(result.message).not.toContain(secret);
    expect(history(tv)).not.toContain(secret);
  });
});

describe('a secret already committed', () => {
  it('does not block later writes to other parts of the note', async () => {
    const { tv, vault, session } = await setup({ [NOTE]: `---\ntitle: Ops\n---\n# Ops\n\ntoken: ${GHP}\n` });
    const appended = await writeNote(vault, { session, path: NOTE, mode: 'append', content: 'The deploy is on Friday.', reason: 'deploy day' });
    expect(appended.status).toBe('written');
    const fields = await writeNote(vault, { session, path: NOTE, mode: 'set_fields', fields: { status: 'active' }, reason: 'status' });
    expect(fields.status).toBe('written');
    expect(tv.read(NOTE)).toContain('The deploy is on Friday.');
    expect(tv.git(['status', '--porcelain'])).toBe('');
  });
});

describe("a person's uncommitted secret", () => {
  it('is never committed: the agent’s append goes to the inbox, the reply says why without the secret, the file is left as the person left it', async () => {
    const { tv, vault, session } = await setup();
    const typed = `${tv.read(NOTE)}\ndeploy key: ${GHP}\n`;
    tv.write(NOTE, typed);
    const commits = tv.commitCount();
    const result = await writeNote(vault, { session, path: NOTE, mode: 'append', content: 'The deploy is on Friday.', reason: 'deploy day' });
    expect(result.status).toBe('conflict');
    expect(result.message).toMatch(/uncommitted changes.*a GitHub token.*never commits secrets/);
    expect(result.message).not.toContain(GHP.slice(4));
    expect(tv.read(NOTE)).toBe(typed);
    expect(tv.commitCount()).toBe(commits + 1);
    expect(tv.git(['show', '--name-only', '--format=', 'HEAD']).trim().split('\n').sort()).toEqual(['changelog.md', result.inbox_path]);
    const inbox = tv.read(result.inbox_path ?? '');
    expect(inbox).toContain('The deploy is on Friday.');
    expect(inbox).not.toContain(GHP.slice(4));
    expect(history(tv)).not.toContain(GHP.slice(4));
  });

  it('a set_fields on a note with a person’s uncommitted key goes to the inbox built on the committed note, without the person’s text', async () => {
    const { tv, vault, session } = await setup();
    tv.write(NOTE, `---\ntitle: Ops\napi_key: ${HEX32}\n---\n# Ops\n\nHow we run things.\n`);
    const result = await writeNote(vault, { session, path: NOTE, mode: 'set_fields', fields: { status: 'active' }, reason: 'status' });
    expect(result.status).toBe('conflict');
    const inbox = tv.read(result.inbox_path ?? '');
    expect(inbox).toContain('status: active');
    expect(inbox).not.toContain('api_key');
    expect(tv.read(NOTE)).toContain(`api_key: ${HEX32}`);
    expect(history(tv)).not.toContain(HEX32);
  });

  it('is refused for a person’s own action too, with a message that says how to go on', async () => {
    const { tv, vault } = await setup();
    tv.write(NOTE, `# Ops\n\ntoken: ${GHP}\n`);
    const error = await refusal(
      vault.edit({ actor: 'human:Test Person', op: 'update', path: NOTE, reason: 'edit', changes: [{ path: NOTE, content: '# Ops\n\nNo token.\n' }] }),
    );
    expect(error.code).toBe('forbidden');
    expect(error.message).toMatch(/commit the file yourself/);
    expect(error.message).not.toContain(GHP.slice(4));
    expect(history(tv)).not.toContain(GHP.slice(4));
  });

  it('an uncommitted edit that keeps a secret HEAD already holds is saved as before', async () => {
    const { tv, vault, session } = await setup({ [NOTE]: `# Ops\n\ntoken: ${GHP}\n` });
    tv.write(NOTE, `# Ops\n\ntoken: ${GHP}\n\nA line the person typed.\n`);
    const result = await writeNote(vault, { session, path: NOTE, mode: 'append', content: 'Second idea.', reason: 'one more idea' });
    expect(result.status).toBe('written');
    expect(tv.git(['log', '-1', '--format=%B', 'HEAD~1'])).toMatch(/saved Test Person's uncommitted edit/);
    expect(tv.git(['status', '--porcelain'])).toBe('');
  });
});
