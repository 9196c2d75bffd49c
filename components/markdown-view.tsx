import Markdown from 'react-markdown';
import rehypeSanitize from 'rehype-sanitize';
import remarkGfm from 'remark-gfm';
import {
  noteSanitizeSchema,
  rehypeFragmentPrefix,
  remarkAnchors,
  remarkCallouts,
  remarkRawHtmlAsText,
  remarkVaultLinks,
  stripComments,
  type EmbedSource,
  type ResolveLink,
} from '../lib/markdown';
import { markdownElements } from './markdown-elements';

export interface MarkdownViewProps {
  /** The note's body, front matter removed. */
  markdown: string;
  /** Vault path of the note (`projects/atlas.md`): links are resolved from its folder. */
  notePath: string;
  /** `(target, kind, fromPath) => vault path | null`, e.g. `(t, k, from) => resolver.resolve(t, from, k)`. */
  resolve: ResolveLink;
  /** Body of an embedded note for `![[note]]`; without it an embed shows only the note's title. */
  embed?: EmbedSource;
  className?: string;
}

/**
 * A vault note as HTML, on the server (no client hooks). Raw HTML is shown as text, never parsed, and
 * rehype-sanitize runs last, so nothing in a note can run script, load a remote resource or clobber a global.
 */
export function MarkdownView({ markdown, notePath, resolve, embed, className }: MarkdownViewProps) {
  return (
    <div className={['max-w-none break-words text-zinc-900 dark:text-zinc-100', className].filter(Boolean).join(' ')}>
      <Markdown
        remarkPlugins={[remarkGfm, remarkRawHtmlAsText, remarkCallouts, remarkAnchors, [remarkVaultLinks, { notePath, resolve, embed }]]}
        // Footnote ids unprefixed here: rehype-sanitize adds the one `user-content-` prefix.
        remarkRehypeOptions={{ clobberPrefix: '' }}
        rehypePlugins={[rehypeFragmentPrefix, [rehypeSanitize, noteSanitizeSchema]]}
        components={markdownElements}
      >
        {stripComments(markdown)}
      </Markdown>
    </div>
  );
}
