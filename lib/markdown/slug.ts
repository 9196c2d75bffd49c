/**
 * rehype-sanitize prefixes every `id` and `name` with this, so a note cannot clobber globals such as
 * `window.__next` (SECURITY-TESTS #30). Links to headings and blocks must target the prefixed id.
 */
export const CLOBBER_PREFIX = 'user-content-';

/**
 * The anchor slug of a heading, GitHub style: lower case, whitespace to `-`, punctuation and symbols dropped
 * (letters and digits of every script kept). `Über uns!` → `über-uns`. Never empty.
 */
export function headingSlug(text: string): string {
  const slug = text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
  return slug === '' ? 'section' : slug;
}

/** Slugs unique within one document: the second `Intro` heading gets `intro-1`, as on GitHub. */
export function createSlugger(): (text: string) => string {
  const seen = new Map<string, number>();
  return (text) => {
    const base = headingSlug(text);
    let slug = base;
    let count = seen.get(base) ?? 0;
    while (seen.has(slug)) slug = `${base}-${++count}`;
    seen.set(base, count);
    seen.set(slug, 0);
    return slug;
  };
}

/** Obsidian block ids: `^` then letters, digits and `-`. */
const BLOCK_ID = /^\^[A-Za-z0-9-]+$/;

/**
 * The element id (before the clobber prefix) a link subpath points to: `^abc` stays `^abc` (a block id);
 * `Heading` and `Parent#Child` become the slug of the last heading named.
 */
export function anchorId(subpath: string): string {
  const trimmed = subpath.trim();
  if (BLOCK_ID.test(trimmed)) return trimmed;
  const parts = trimmed.split('#').filter((part) => part.trim() !== '');
  return headingSlug(parts[parts.length - 1] ?? '');
}
