import { timingSafeEqual } from 'node:crypto';

/**
 * The request gate's rules as pure functions, shared by proxy.ts (every request) and the wrapper
 * every server action goes through (CVE-2025-29927: the proxy alone is not enough).
 */

/** What the gate needs to know about the running server. */
export interface GateConfig {
  port: number;
  token: string;
}

/** The parts of a request the gate looks at. */
export interface GateRequest {
  method: string;
  host: string | null;
  origin: string | null;
  cookie: string | null;
}

/** The gate's verdict; `status` and `reason` are what the refused client sees. */
export type GateVerdict = { ok: true } | { ok: false; status: 401 | 403; reason: string };

/** The name of the login cookie: cookies ignore ports, so it is named after the port. */
export function cookieName(port: number): string {
  return `lucid_${port}`;
}

/** The only Host header values served: the loopback names with the bound port, exactly. */
export function allowedHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
}

/** The only Origins allowed on a state-changing request. */
function allowedOrigins(port: number): string[] {
  return allowedHosts(port).map((host) => `http://${host}`);
}

/** Compares secrets in constant time. */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Decides whether a request may reach the app: an exact Host from the allowlist (DNS rebinding),
 * the login cookie equal to this launch's token, and, on anything but GET/HEAD/OPTIONS, an Origin
 * that is exactly one of ours (a missing or `null` Origin is refused).
 */
export function checkRequest(request: GateRequest, config: GateConfig): GateVerdict {
  if (!request.host || !allowedHosts(config.port).includes(request.host)) {
    return { ok: false, status: 403, reason: 'This dashboard only answers on 127.0.0.1 and localhost at its own port.' };
  }
  if (!SAFE_METHODS.has(request.method.toUpperCase())) {
    if (!request.origin || !allowedOrigins(config.port).includes(request.origin)) {
      return { ok: false, status: 403, reason: 'Changes are only accepted from the dashboard itself (Origin check).' };
    }
  }
  const presented = readCookie(request.cookie, cookieName(config.port));
  if (!presented || !safeEqual(presented, config.token)) {
    return { ok: false, status: 401, reason: "Open the dashboard with the link that `lucid serve` printed (it carries this launch's token)." };
  }
  return { ok: true };
}

/** One cookie's value from a Cookie header. */
function readCookie(header: string | null, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at === -1) continue;
    if (part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return null;
}

/**
 * Where the token exchange (`/?token=…`) sends the browser after setting the cookie: the request's
 * own path and query, only when the path is a plain same-origin path (one leading `/`, then not `/`
 * or `\`, in any URL-decoded form, and no control characters, which browsers drop), else `/`.
 * `//evil.example/x` would otherwise be read as another host (an open redirect).
 */
export function loginRedirectTarget(pathname: string, query: string): string {
  const path = isSameOriginPath(pathname) ? pathname : '/';
  return query ? `${path}?${query}` : path;
}

function isSameOriginPath(pathname: string): boolean {
  let form = pathname;
  for (let i = 0; i < 4; i += 1) {
    if (!form.startsWith('/') || form.startsWith('//') || form.startsWith('/\\') || /[\u0000-\u001f\u007f]/.test(form)) return false;
    let next: string;
    try {
      next = decodeURIComponent(form);
    } catch {
      return false;
    }
    if (next === form) return true;
    form = next;
  }
  return false;
}

/** The Content-Security-Policy for one response, with its nonce. */
export function contentSecurityPolicy(nonce: string, dev = false): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ''}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Reads the gate's configuration from the environment `lucid serve` set. */
export function gateConfigFrom(env: Record<string, string | undefined>): GateConfig | null {
  const port = Number(env.LUCID_PORT);
  const token = env.LUCID_TOKEN;
  if (!Number.isInteger(port) || port <= 0 || !token || token.length < 16) return null;
  return { port, token };
}
