import { beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';

// Catalog #7 and #11: the gate inside every server action, tested without the proxy in front of
// it (the case CVE-2025-29927 makes possible), and what an action answers to forged arguments.

const PORT = 4567;
const TOKEN = 'a-test-token-of-sufficient-length';
const request = { headers: new Headers() };

vi.mock('server-only', () => ({}));
vi.mock('next/headers', () => ({ headers: async () => request.headers }));
vi.mock('@/lib/vault', async () => {
  const errors = await import('../../lib/vault/errors');
  return { isVaultError: errors.isVaultError };
});
vi.mock('../../lib/server/config', () => ({ serverConfig: () => ({ vaultRoot: '/nonexistent', gate: { port: PORT, token: TOKEN } }) }));

const { gatedAction } = await import('../../lib/server/action');
const { VaultError } = await import('../../lib/vault/errors');

const GOOD = { host: `127.0.0.1:${PORT}`, origin: `http://127.0.0.1:${PORT}`, cookie: `lucid_${PORT}=${TOKEN}` };

function as(headers: Record<string, string | undefined>): void {
  const h = new Headers();
  for (const [key, value] of Object.entries(headers)) if (value !== undefined) h.set(key, value);
  request.headers = h;
}

describe('the gate inside a server action, with no proxy in front of it', () => {
  const body = vi.fn(async (input: { query: string }) => `ran with ${input.query}`);
  const action = gatedAction(z.object({ query: z.string().max(10) }).strict(), body);
  beforeEach(() => {
    body.mockClear();
  });

  it.each([
    ['a foreign Origin', { ...GOOD, origin: 'http://evil.example' }],
    ['no Origin', { ...GOOD, origin: undefined }],
    ['Origin null', { ...GOOD, origin: 'null' }],
    ['a rebinding Host with its matching Origin', { ...GOOD, host: `evil.example:${PORT}`, origin: `http://evil.example:${PORT}` }],
    ['no cookie', { ...GOOD, cookie: undefined }],
    ['a wrong token', { ...GOOD, cookie: `lucid_${PORT}=${TOKEN.slice(0, -1)}x` }],
    ['the cookie of another port', { ...GOOD, cookie: `lucid_${PORT + 1}=${TOKEN}` }],
  ])('refuses %s before the action body runs', async (_label, headers) => {
    as(headers);

    const result = await action({ query: 'atlas' });

    expect(result).toMatchObject({ ok: false, code: 'forbidden' });
    expect(body).not.toHaveBeenCalled();
  });

  it('runs the body for the dashboard itself', async () => {
    as(GOOD);

    expect(await action({ query: 'atlas' })).toEqual({ ok: true, data: 'ran with atlas' });
    expect(body).toHaveBeenCalledTimes(1);
  });

  it.each([
    ['a wrong type', { query: 42 }],
    ['an extra field', { query: 'atlas', path: '../../etc/passwd' }],
    ['a missing field', {}],
    ['too long a value', { query: 'x'.repeat(11) }],
    ['no object at all', 'atlas'],
    ['null', null],
  ])('answers forged arguments (%s) with a validation error, no stack trace, and never runs the body', async (_label, input) => {
    as(GOOD);

    const result = await action(input as never);

    expect(result).toMatchObject({ ok: false, code: 'invalid_input', message: 'Check the highlighted fields.' });
    expect(JSON.stringify(result)).not.toMatch(/\bat .*\.(ts|js):\d+/);
    expect(body).not.toHaveBeenCalled();
  });

  it("returns a vault refusal as its code and sentence, never the error's stack", async () => {
    as(GOOD);
    const refusing = gatedAction(z.object({}), async () => {
      throw new VaultError('invalid_path', 'That path leaves the vault.');
    });

    const result = await refusing({});

    expect(result).toEqual({ ok: false, code: 'invalid_path', message: 'That path leaves the vault.' });
  });
});
