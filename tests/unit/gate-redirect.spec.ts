import { describe, expect, it } from 'vitest';
import { loginRedirectTarget } from '../../lib/server/gate-rules';

const ORIGIN = 'http://127.0.0.1:3123';

/** Where a browser goes with the Location the token exchange sends (resolved as a browser resolves it). */
function landing(pathname: string, query = ''): URL {
  return new URL(loginRedirectTarget(pathname, query), ORIGIN);
}

describe('loginRedirectTarget: the token exchange only redirects to a same-origin path', () => {
  it.each([
    ['//evil.example/x'],
    ['///evil.example/x'],
    ['/\\evil.example'],
    ['/\\\\evil.example/x'],
    ['https://evil.example'],
    ['evil.example'],
    ['/%2F%2Fevil.example'],
    ['/%2f/evil.example'],
    ['/%5Cevil.example'],
    ['/%252F%252Fevil.example'],
    ['/\t/evil.example'],
    ['/%09/evil.example'],
    ['/\n/evil.example'],
    [''],
  ])('sends %j to / on this origin', (pathname) => {
    const url = landing(pathname, 'a=1');
    expect(url.origin).toBe(ORIGIN);
    expect(url.pathname).toBe('/');
    expect(url.search).toBe('?a=1');
  });

  it.each([
    ['/', '/'],
    ['/notes/projects/atlas.md', '/notes/projects/atlas.md'],
    ['/notes/Notes/Team%20handbook.md', '/notes/Notes/Team%20handbook.md'],
    ['/search', '/search'],
    ['/notes/a%2Fb.md', '/notes/a%2Fb.md'],
  ])('keeps the same-origin path %j', (pathname, expected) => {
    const url = landing(pathname, 'q=x');
    expect(url.origin).toBe(ORIGIN);
    expect(url.pathname).toBe(expected);
    expect(url.search).toBe('?q=x');
  });

  it('adds no query when there is none', () => {
    expect(loginRedirectTarget('/search', '')).toBe('/search');
  });
});
