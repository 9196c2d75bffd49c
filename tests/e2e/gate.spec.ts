import { expect, test } from '../support/e2e-test';
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { e2eServer, e2eVault, rawRequest, serverActionIds } from '../support/e2e-vault';

const { port, token } = e2eServer();
const cookie = `lucid_${port}=${token}`;
const host = `127.0.0.1:${port}`;

test('a foreign Host is refused on pages, notes and files (DNS rebinding), even with the cookie', async () => {
  for (const path of ['/', '/notes/projects/atlas.md', '/search', '/files/x.png', '/api/listing-changes']) {
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
  // The watcher's events name the vault's paths: they are behind the same gate.
  const events = await rawRequest({ path: '/api/listing-changes', headers: { Host: host } });
  expect(events.status).toBe(401);
  expect(events.body).not.toContain('event:');
  expect((await rawRequest({ path: '/', headers: { Host: host, Cookie: `lucid_${port}=${token.slice(0, -1)}` } })).status).toBe(401);
  expect((await rawRequest({ path: `/?token=${token.slice(0, 10)}`, headers: { Host: host } })).status).toBe(401);
  const login = await rawRequest({ path: `/?token=${token}`, headers: { Host: host } });
  expect(login.status).toBe(303);
});

test('the token exchange redirects only to a path on this origin (no open redirect)', async () => {
  const origin = `http://${host}`;
  const exchange = async (path: string) => {
    const response = await rawRequest({ path: `${path}?token=${token}&a=1`, headers: { Host: host } });
    const target = new URL(String(response.headers.location), origin);
    expect(target.origin, path).toBe(origin);
    return { status: response.status, target };
  };
  // Next itself first folds repeated slashes and backslashes into one slash (308, on this origin); the
  // exchange then runs on that path.
  for (const path of ['//evil.example/x', '///evil.example/x', '/\\evil.example']) {
    const { status, target } = await exchange(path);
    expect(status, path).toBe(308);
    expect(target.pathname.startsWith('//'), path).toBe(false);
  }
  // Encoded slashes and backslashes are a path segment to Next: the exchange answers them itself.
  for (const path of ['/%2F%2Fevil.example', '/%5C%5Cevil.example']) {
    const { status, target } = await exchange(path);
    expect(status, path).toBe(303);
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

/** A request written byte for byte on a socket, for what http.request cannot send (two Host headers). */
function rawSocketRequest(lines: string[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => socket.write(`${lines.join('\r\n')}\r\nConnection: close\r\n\r\n`));
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => (data += chunk));
    socket.on('end', () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0), body: data }));
    socket.on('error', reject);
  });
}

test('#6 more Host shapes: a loopback name as a prefix, an IPv4-mapped address, and two Host headers', async () => {
  for (const spoof of [`127.0.0.1.evil.example:${port}`, `[::ffff:127.0.0.1]:${port}`, `127.1:${port}`, `127.0.0.1:${port}.evil.example`]) {
    const response = await rawRequest({ path: '/notes/projects/atlas.md', headers: { Host: spoof, Cookie: cookie } });
    expect(response.status, spoof).toBe(403);
    expect(response.body).not.toContain('Billing');
  }
  const both = await rawSocketRequest(['GET /notes/projects/atlas.md HTTP/1.1', `Host: evil.example:${port}`, `Host: ${host}`, `Cookie: ${cookie}`]);
  expect([400, 403]).toContain(both.status);
  expect(both.body).not.toContain('Billing');
});

// Found by the catalog (reported to the lead): Node's HTTP parser keeps the first of two Host
// headers and drops the rest, so a request whose first Host is ours and whose second is foreign is
// served (RFC 9112 asks for 400). No browser sends two Host headers, so a web page cannot use it; a
// local process can send any Host anyway. Unskip once proxy.ts refuses a request with two Hosts.
test.skip('(finding: duplicate Host served) two Host headers, ours first, are refused', async () => {
  const response = await rawSocketRequest(['GET /notes/projects/atlas.md HTTP/1.1', `Host: ${host}`, `Host: evil.example:${port}`, `Cookie: ${cookie}`]);
  expect([400, 403]).toContain(response.status);
});

test('#8 the token works only at its own exchange: not in a Referer, not on a POST, not with anything added', async () => {
  const inReferer = await rawRequest({ path: '/notes/projects/atlas.md', headers: { Host: host, Referer: `http://${host}/?token=${token}` } });
  expect(inReferer.status).toBe(401);
  expect(inReferer.body).not.toContain('Billing');
  const onPost = await rawRequest({
    method: 'POST',
    path: `/?token=${token}`,
    headers: { Host: host, Origin: `http://${host}`, 'Content-Type': 'text/plain' },
    body: 'x',
  });
  expect(onPost.status).toBe(401);
  for (const wrong of [`${token}x`, token.toUpperCase() === token ? token.toLowerCase() : token.toUpperCase(), encodeURIComponent(` ${token}`)]) {
    const exchange = await rawRequest({ path: `/?token=${wrong}`, headers: { Host: host } });
    expect(exchange.status, wrong).toBe(401);
    expect(exchange.body).not.toContain(token);
  }
  const login = await rawRequestWithHeaders({ path: `/notes/projects/atlas.md?token=${token}&x=1`, headers: { Host: host } });
  expect(login.status).toBe(303);
  expect(login.headers.location).toMatch(new RegExp(`^(http://${host.replace(/\./g, '\\.')})?/notes/projects/atlas\\.md\\?x=1$`));
  expect(login.headers['referrer-policy']).toBe('no-referrer');
  expect(String(login.headers['set-cookie'])).toMatch(new RegExp(`^lucid_${port}=[^;]+;.*HttpOnly`, 'i'));
  expect(String(login.headers['set-cookie'])).toMatch(/SameSite=Strict/i);
});

test('#9 the server is bound to 127.0.0.1 only, and it is a production build', async () => {
  const listening = listeningAddresses(port);
  expect(listening.length).toBeGreaterThan(0);
  for (const address of listening) expect(address).toBe('127.0.0.1');
  for (const devPath of ['/_next/webpack-hmr', '/__nextjs_original-stack-frame', '/_next/static/development/_devPagesManifest.json']) {
    const response = await rawRequest({ path: devPath, headers: { Host: host, Cookie: cookie } });
    expect([400, 404], devPath).toContain(response.status);
  }
});

/** rawRequest, also returning the response headers. */
function rawRequestWithHeaders(options: { path: string; headers: Record<string, string> }): Promise<{ status: number; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: options.path, headers: options.headers, setHost: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('#5 cross-site forms, multipart and urlencoded, with or without an Origin, write nothing', async () => {
  const vault = e2eVault();
  const before = vault.snapshot();
  const multipart =
    '--x\r\nContent-Disposition: form-data; name="1_$ACTION_ID_0"\r\n\r\n\r\n--x\r\nContent-Disposition: form-data; name="0"\r\n\r\n["$K1"]\r\n--x--\r\n';
  for (const origin of ['http://evil.example', 'null', undefined]) {
    for (const [type, body] of [
      ['multipart/form-data; boundary=x', multipart],
      ['application/x-www-form-urlencoded', 'a=b'],
      ['text/plain', 'a=b'],
    ]) {
      for (const path of ['/', '/search', '/notes/projects/atlas.md']) {
        const headers: Record<string, string> = { Host: host, Cookie: cookie, 'Content-Type': type };
        if (origin) headers.Origin = origin;
        const response = await rawRequest({ method: 'POST', path, headers, body });
        expect(response.status, `${origin} ${type} ${path}`).toBe(403);
      }
    }
  }
  expect(vault.snapshot()).toEqual(before);
});

test('#11 an action id that this build does not have (a replayed id from an old build) gets no stack trace and changes nothing', async () => {
  const vault = e2eVault();
  const before = vault.snapshot();
  const response = await rawRequest({
    method: 'POST',
    path: '/search',
    headers: { Host: host, Cookie: cookie, Origin: `http://${host}`, 'Next-Action': '7f'.repeat(21), 'Content-Type': 'text/plain;charset=UTF-8' },
    body: '[{"query":"atlas"}]',
  });
  expect(response.status).toBeLessThan(500);
  expect(response.body).not.toMatch(/\n\s+at .+:\d+:\d+/);
  expect(vault.snapshot()).toEqual(before);
});

/** The local addresses listening on `port`, from the kernel's socket tables (what `ss -ltn` reads). */
function listeningAddresses(listenPort: number): string[] {
  const out: string[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(table)) continue;
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const columns = line.trim().split(/\s+/);
      if (columns.length < 4 || columns[3] !== '0A') continue;
      const [address, portHex] = columns[1].split(':');
      if (Number.parseInt(portHex, 16) !== listenPort) continue;
      const bytes = (address.match(/../g) ?? []).map((hex) => Number.parseInt(hex, 16));
      out.push(address.length === 8 ? bytes.reverse().join('.') : `[${address}]`);
    }
  }
  return out;
}
