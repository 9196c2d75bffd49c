import { expect, test } from '@playwright/test';
import { e2eServer, e2eVault, rawRequest, serverActionIds } from '../support/e2e-vault';

const { port, token } = e2eServer();
const cookie = `lucid_${port}=${token}`;
const host = `127.0.0.1:${port}`;

test('a foreign Host is refused on pages, notes and files (DNS rebinding), even with the cookie', async () => {
  for (const path of ['/', '/notes/projects/atlas.md', '/search', '/files/x.png']) {
    const response = await rawRequest({ path, headers: { Host: `evil.example:${port}`, Cookie: cookie } });
    expect(response.status, path).toBe(403);
    expect(response.body).not.toContain('Billing');
  }
  for (const spoof of [
    `localhost.evil.example:${port}`,
    `LOCALHOST:${port}`,
    `localhost.:${port}`,
    `0.0.0.0:${port}`,
    `127.0.0.2:${port}`,
    `127.0.0.1:${port + 1}`,
    '',
  ]) {
    expect((await rawRequest({ path: '/', headers: { Host: spoof, Cookie: cookie } })).status, spoof).toBe(403);
  }
});

test('without the login cookie, or with a wrong token, nothing is shown', async () => {
  const noCookie = await rawRequest({ path: '/notes/projects/atlas.md', headers: { Host: host } });
  expect(noCookie.status).toBe(401);
  expect(noCookie.body).not.toContain('Billing');
  expect((await rawRequest({ path: '/', headers: { Host: host, Cookie: `lucid_${port}=${token.slice(0, -1)}` } })).status).toBe(401);
  expect((await rawRequest({ path: `/?token=${token.slice(0, 10)}`, headers: { Host: host } })).status).toBe(401);
  const login = await rawRequest({ path: `/?token=${token}`, headers: { Host: host } });
  expect(login.status).toBe(303);
});

test('the token exchange redirects only to a path on this origin (no open redirect)', async () => {
  const origin = `http://${host}`;
  for (const path of ['//evil.example/x', '/\\evil.example', '/%2F%2Fevil.example', '/%5C%5Cevil.example', '///evil.example/x']) {
    const response = await rawRequest({ path: `${path}?token=${token}&a=1`, headers: { Host: host } });
    const target = new URL(String(response.headers.location), origin);
    expect(target.origin, path).toBe(origin);
    if (response.status === 308) {
      // Next itself first folds repeated slashes into one, on this origin; the exchange then runs on that path.
      expect(target.pathname.startsWith('//'), path).toBe(false);
      continue;
    }
    expect(response.status, path).toBe(303);
    expect(target.pathname, path).toBe('/');
    expect(target.search, path).toBe('?a=1');
  }
  const ordinary = await rawRequest({ path: `/search?token=${token}&q=atlas`, headers: { Host: host } });
  expect(ordinary.status).toBe(303);
  expect(new URL(String(ordinary.headers.location), origin).href).toBe(`${origin}/search?q=atlas`);
});

test('every server action refuses a foreign Origin, no Origin, Origin null and no cookie, and the vault is unchanged', async () => {
  const vault = e2eVault();
  const before = vault.snapshot();
  const ids = serverActionIds();
  expect(ids.length).toBeGreaterThan(0);
  const attempts: Record<string, string>[] = [
    { Host: host, Cookie: cookie, Origin: 'http://evil.example' },
    { Host: host, Cookie: cookie },
    { Host: host, Cookie: cookie, Origin: 'null' },
    { Host: host, Origin: `http://${host}` },
    { Host: `evil.example:${port}`, Cookie: cookie, Origin: `http://evil.example:${port}` },
    { Host: host, Cookie: cookie, Origin: 'http://evil.example', 'x-middleware-subrequest': 'proxy:proxy:proxy:proxy:proxy' },
  ];
  for (const id of ids) {
    for (const headers of attempts) {
      const response = await rawRequest({
        method: 'POST',
        path: '/search',
        headers: { ...headers, 'Next-Action': id, 'Content-Type': 'text/plain;charset=UTF-8' },
        body: '[{"query":"atlas"}]',
      });
      expect([401, 403], JSON.stringify(headers)).toContain(response.status);
      expect(response.body).not.toContain('atlas.md');
    }
  }
  const form = await rawRequest({
    method: 'POST',
    path: '/',
    headers: { Host: host, Cookie: cookie, Origin: 'http://evil.example', 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'a=b',
  });
  expect(form.status).toBe(403);
  expect(vault.snapshot()).toEqual(before);
});

test("the dashboard's own requests carry the right Origin and work; pages send a nonce CSP", async ({ page }) => {
  const violations: string[] = [];
  await page.exposeFunction('reportCsp', (v: string) => violations.push(v));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) =>
      (window as unknown as { reportCsp: (v: string) => void }).reportCsp(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  const response = await page.goto('/search');
  const csp = response?.headers()['content-security-policy'] ?? '';
  expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
  expect(csp).toContain("frame-ancestors 'none'");
  await page.getByRole('searchbox').fill('opensearch');
  await expect(page.getByRole('list', { name: 'Search results' }).getByRole('listitem').first()).toBeVisible();
  for (const path of ['/', '/health', '/notes/Notes/Team%20handbook.md', '/notes/Notes/Pasted%20from%20support%20ticket.md']) await page.goto(path);
  expect(violations).toEqual([]);
});
