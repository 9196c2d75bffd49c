export { stripComments } from '../vault/notes/comments';
export { encodeVaultPath, fileHref, fragmentHref, isImagePath, isNotePath, noteHref, vaultHref } from './hrefs';
export { rehypeFragmentPrefix } from './rehype-fragment-prefix';
export { addAnchors, remarkAnchors, type AnchorOptions } from './remark-anchors';
export { remarkCallouts, transformCallouts } from './remark-callouts';
export { remarkRawHtmlAsText, transformRawHtml } from './remark-raw-html';
export {
  EXTERNAL_LINK_PROPERTIES,
  remarkVaultLinks,
  type EmbedSource,
  type ResolveLink,
  type VaultLinksOptions,
} from './remark-vault-links';
export { noteSanitizeSchema } from './sanitize-schema';
export { CLOBBER_PREFIX, anchorId, createSlugger, headingSlug } from './slug';
export { findWikilinks, parseImageSize, type WikilinkToken } from './wikilink-syntax';
