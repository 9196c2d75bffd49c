import { NextResponse, type NextRequest } from 'next/server';
import { allowedHosts, checkRequest, contentSecurityPolicy, cookieName, gateConfigFrom, loginRedirectTarget, safeEqual } from '@/lib/server/gate-rules';

/**
 * The gate in front of every request (pages, actions, route handlers, static files): exact Host,
 * the per-launch token exchanged for a cookie, Origin on state-changing requests, and a nonce-based
 * CSP. Server actions check the same rules again inside (lib/server/gate.ts).
 */
export function proxy(request: NextRequest) {
  const config = gateConfigFrom(process.env);
  if (!config) return refuse(500, 'The dashboard was started without its configuration. Start it with `lucid serve` (or `npm start`).');
  const host = request.headers.get('host');
  const token = request.nextUrl.searchParams.get('token');
  if (token !== null && request.method === 'GET') {
    if (!host || !allowedHosts(config.port).includes(host)) return refuse(403, 'This dashboard only answers on 127.0.0.1 and localhost at its own port.');
    if (!safeEqual(token, config.token))
      return refuse(401, 'That link is from another launch of the dashboard. Open the link `lucid serve` printed this time.');
    const params = new URLSearchParams(request.nextUrl.searchParams);
    params.delete('token');
    const query = params.toString();
    const origin = `http://${host}`;
    let location = new URL(loginRedirectTarget(request.nextUrl.pathname, query), origin);
    if (location.origin !== origin) location = new URL('/', origin);
    const response = NextResponse.redirect(location, 303);
    response.cookies.set(cookieName(config.port), config.token, { httpOnly: true, sameSite: 'strict', path: '/' });
    response.headers.set('Referrer-Policy', 'no-referrer');
    response.headers.set('Cache-Control', 'no-store');
    return response;
  }
  const verdict = checkRequest({ method: request.method, host, origin: request.headers.get('origin'), cookie: request.headers.get('cookie') }, config);
  if (!verdict.ok) return refuse(verdict.status, verdict.reason);

  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('base64');
  const csp = contentSecurityPolicy(nonce, process.env.NODE_ENV === 'development');
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set('x-nonce', nonce);
  requestHeaders.set('Content-Security-Policy', csp);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set('Content-Security-Policy', csp);
  response.headers.set('Referrer-Policy', 'no-referrer');
  response.headers.set('X-Content-Type-Options', 'nosniff');
  response.headers.set('X-Frame-Options', 'DENY');
  return response;
}

function refuse(status: number, reason: string): NextResponse {
  const body = `<!doctype html><meta charset="utf-8"><title>Lucid</title><body style="font-family:system-ui;max-width:40rem;margin:4rem auto"><h1>Lucid</h1><p>${escapeHtml(reason)}</p></body>`;
  return new NextResponse(body, {
    status,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'",
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-store',
    },
  });
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
