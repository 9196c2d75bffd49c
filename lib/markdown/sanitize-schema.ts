import { defaultSchema, type Options as SanitizeSchema } from 'rehype-sanitize';
import { CLOBBER_PREFIX } from './slug';

const aria = ['ariaDescribedBy', 'ariaLabel', 'ariaLabelledBy'];
const defaults = defaultSchema.attributes ?? {};

/**
 * rehype-sanitize's GitHub-style default schema, extended only with what the note plugins emit:
 * - `div`: the classes of callouts and embeds, and `data-callout` (a slug, checked by pattern);
 * - `summary`: the callout title class and `data-callout` (foldable callouts);
 * - `span`: the `broken-link` and `blocked-link` classes;
 * - `a`: `target="_blank"` and `rel="noopener noreferrer nofollow"`, exactly those values.
 * And narrowed: `href` only http, https, mailto or relative; `img` `src` only the confined `/files/` route, so a
 * remote image can never be fetched, whatever a plugin did (SECURITY-TESTS #31). Ids and names keep the
 * `user-content-` prefix (DOM clobbering, #30). Raw HTML never reaches this: it is text (remark-raw-html).
 */
export const noteSanitizeSchema: SanitizeSchema = {
  ...defaultSchema,
  clobberPrefix: CLOBBER_PREFIX,
  attributes: {
    ...defaults,
    a: [...(defaults.a ?? []), ['target', '_blank'], ['rel', 'noopener', 'noreferrer', 'nofollow']],
    div: [
      ...(defaults.div ?? []),
      ['className', 'callout', 'callout-title', 'callout-content', 'embed', 'embed-title', 'embed-content'],
      ['dataCallout', /^[a-z0-9][\w-]*$/],
    ],
    summary: [...(defaults.summary ?? []), ['className', 'callout-title'], ['dataCallout', /^[a-z0-9][\w-]*$/]],
    span: [...(defaults.span ?? []), ['className', 'broken-link', 'blocked-link']],
    img: [...aria, ['src', /^\/files\//]],
  },
  protocols: {
    ...defaultSchema.protocols,
    href: ['http', 'https', 'mailto'],
  },
};
