import { beforeEach, describe, expect, it, vi } from 'vitest';

// Catalog #2, #3, #4, #6 and #8 on the gate's rules themselves (lib/server/gate-rules.ts), which
// proxy.ts and every server action apply; tests/e2e/gate.spec.ts sends the same shapes over HTTP.

const timingSafeEqual = vi.hoisted(() => ({ calls: 0 }));
vi.mock('node:crypto', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:crypto')>();
  return {
    ...real,
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      timingSafeEqual.calls += 1;
      return real.timingSafeEqual(a, b);
    },
  };
});

const { checkRequest, cookieName, safeEqual } = await import('../../lib/server/gate-rules');

const PORT = 4567;
const TOKEN = 'Zq3-per-launch-token-0123456789';
const config = { port: PORT, token: TOKEN };
const COOKIE = `${cookieName(PORT)}=${TOKEN}`;

function verdict(request: { method?: string; host?: string | null; origin?: string | null; cookie?: string | null }) {
  return checkRequest({ method: request.method ?? 'POST', host: request.host ?? null, origin: request.origin ?? null, cookie: request.cookie ?? null }, config);
}

describe('#6 the Host allowlist: exact forms only', () => {
  it.each([`127.0.0.1:${PORT}`, `localhost:${PORT}`, `[::1]:${PORT}`])('serves %s', (host) => {
    expect(verdict({ method: 'GET', host, cookie: COOKIE })).toEqual({ ok: true });
  });

  it.each([
    `localhost.evil.example:${PORT}`,
    `127.0.0.1.evil.example:${PORT}`,
    `evil.example:${PORT}`,
    `LOCALHOST:${PORT}`,
    `Localhost:${PORT}`,
    `localhost.:${PORT}`,
    `0.0.0.0:${PORT}`,
    `127.0.0.2:${PORT}`,
    `[::ffff:127.0.0.1]:${PORT}`,
    `[0:0:0:0:0:0:0:1]:${PORT}`,
    `2130706433:${PORT}`,
    `127.1:${PORT}`,
    `127.0.0.1:${PORT + 1}`,
    `127.0.0.1:0${PORT}`,
    '127.0.0.1',
    'localhost',
    `127.0.0.1:${PORT} `,
    ` 127.0.0.1:${PORT}`,
    `127.0.0.1:${PORT}, evil.example`,
    `127.0.0.1:${PORT}.evil.example`,
    `user@127.0.0.1:${PORT}`,
    '',
    null,
  ])('refuses Host %j with 403, even with the cookie', (host) => {
    expect(verdict({ method: 'GET', host, cookie: COOKIE })).toMatchObject({ ok: false, status: 403 });
  });
});

describe('#2 #3 #4 #6 the Origin on a state-changing request: exact forms only, never missing', () => {
  const host = `127.0.0.1:${PORT}`;

  it.each([`http://127.0.0.1:${PORT}`, `http://localhost:${PORT}`, `http://[::1]:${PORT}`])('accepts %s', (origin) => {
    expect(verdict({ host, origin, cookie: COOKIE })).toEqual({ ok: true });
  });

  it.each([
    null,
    'null',
    '',
    'http://evil.example',
    `http://evil.example:${PORT}`,
    `http://localhost.evil.example:${PORT}`,
    `http://127.0.0.1.evil.example:${PORT}`,
    `http://127.0.0.1:${PORT}.evil.example`,
    `https://127.0.0.1:${PORT}`,
    `http://127.0.0.1:${PORT}/`,
    `http://127.0.0.1:${PORT + 1}`,
    'http://127.0.0.1',
    `http://LOCALHOST:${PORT}`,
    `http://localhost.:${PORT}`,
    `http://127.0.0.2:${PORT}`,
    `http://0.0.0.0:${PORT}`,
    `http://[::ffff:127.0.0.1]:${PORT}`,
    `file://127.0.0.1:${PORT}`,
  ])('refuses Origin %j with 403', (origin) => {
    expect(verdict({ host, origin, cookie: COOKIE })).toMatchObject({ ok: false, status: 403 });
  });

  it.each(['POST', 'PUT', 'PATCH', 'DELETE', 'post', 'PROPFIND'])('asks for the Origin on %s', (method) => {
    expect(verdict({ method, host, cookie: COOKIE })).toMatchObject({ ok: false, status: 403 });
  });

  it('a rebinding-shaped pair (foreign Host with its own matching Origin) is refused by the Host check', () => {
    expect(verdict({ host: `evil.example:${PORT}`, origin: `http://evil.example:${PORT}`, cookie: COOKIE })).toMatchObject({ ok: false, status: 403 });
  });
});

describe('#8 the token cookie', () => {
  const host = `127.0.0.1:${PORT}`;
  beforeEach(() => {
    timingSafeEqual.calls = 0;
  });

  it.each([
    ['no cookie', null],
    ['an empty value', `${cookieName(PORT)}=`],
    ['a truncated token', `${cookieName(PORT)}=${TOKEN.slice(0, -1)}`],
    ['a prefix of the token', `${cookieName(PORT)}=${TOKEN.slice(0, 8)}`],
    ['the token with more after it', `${cookieName(PORT)}=${TOKEN}x`],
    ['the token in another case', `${cookieName(PORT)}=${TOKEN.toUpperCase()}`],
    ['the cookie of another port', `${cookieName(PORT + 1)}=${TOKEN}`],
    ['the token under a name that ends like ours', `x${cookieName(PORT)}=${TOKEN}`],
    ['the token as another cookie', `token=${TOKEN}`],
  ])('%s is 401', (_label, cookie) => {
    expect(verdict({ method: 'GET', host, cookie })).toMatchObject({ ok: false, status: 401 });
  });

  it('finds the cookie among others', () => {
    expect(verdict({ method: 'GET', host, cookie: `a=b; ${COOKIE}; c=d` })).toEqual({ ok: true });
  });

  it('compares tokens with crypto.timingSafeEqual', () => {
    expect(safeEqual(TOKEN, TOKEN)).toBe(true);
    expect(safeEqual(TOKEN, `${TOKEN.slice(0, -1)}x`)).toBe(false);
    expect(timingSafeEqual.calls).toBe(2);
    expect(verdict({ method: 'GET', host, cookie: COOKIE })).toEqual({ ok: true });
    expect(timingSafeEqual.calls).toBe(3);
  });

  it('the refusal never repeats the token', () => {
    const refused = verdict({ method: 'GET', host, cookie: `${cookieName(PORT)}=${TOKEN.slice(0, -1)}` });
    expect(JSON.stringify(refused)).not.toContain(TOKEN.slice(0, 12));
  });
});
