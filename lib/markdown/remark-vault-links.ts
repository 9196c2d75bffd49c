import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';
import type { Definition, Image, Link, Paragraph, Parent, PhrasingContent, Root, RootContent, Text } from 'mdast';
import { isExternalTarget, type LinkKind } from '../vault/notes/links';
import { stripComments } from '../vault/notes/comments';
import { fileHref, fragmentHref, isImagePath, isNotePath, isRemoteUrl, isWebUrl, noteHref, safeDecode, vaultHref } from './hrefs';
import { element, isBlockElement, plainText, setHastProperties, text, type LucidElement } from './nodes';
import { addAnchors } from './remark-anchors';
import { transformCallouts } from './remark-callouts';
import { transformRawHtml } from './remark-raw-html';
import { headingSlug } from './slug';
import { findWikilinks, parseImageSize, type WikilinkToken } from './wikilink-syntax';

/**
 * Finds the vault path a link points to, with Obsidian's rules (lib/vault/links.ts createLinkResolver):
 * `(target, kind, fromPath) => resolver.resolve(target, fromPath, kind)`. `fromPath` is the note the link is
 * written in: the rendered note, or the embedded note for links inside an embed. Returns null when nothing matches.
 */
export type ResolveLink = (target: string, kind: Exclude<LinkKind, 'frontmatter'>, fromPath: string) => string | null;

/** The markdown body (no front matter) of the note at a vault path, for `![[embeds]]`; null to show only its title. */
export type EmbedSource = (path: string) => string | null;

export interface VaultLinksOptions {
  /** Vault path of the note being rendered. */
  notePath: string;
  resolve: ResolveLink;
  embed?: EmbedSource;
}

interface Context extends VaultLinksOptions {
  /** True inside an embedded note: its embeds become plain links (one level deep). */
  nested: boolean;
}

/** Attributes of every link that leaves the dashboard. */
const EXTERNAL_LINK_PROPERTIES = { target: '_blank', rel: ['noopener', 'noreferrer', 'nofollow'] };

/**
 * Vault links, rendered the way Obsidian resolves them:
 * - `[[name]]`, `[[name|alias]]`, `[[name#Heading]]`, `[[name#^block]]`, `[[#Heading]]` in text (never in code,
 *   which mdast keeps as `inlineCode`/`code` values) → `<a href="/notes/<encoded path>#user-content-<slug>">`;
 * - `[text](path.md)`, `[text](<a b.md>)`, `[text](My%20Note.md#Heading)`, relative to the note → the same hrefs;
 * - unresolved → `<span class="broken-link" title="No note named …">`;
 * - `http(s):`/`mailto:` links → `target="_blank" rel="noopener noreferrer nofollow"`; other schemes
 *   (`javascript:`, `data:`, `vbscript:`, `obsidian:` ...) → text in `<span class="blocked-link">`;
 * - images `![](x.png)`, `![[x.png|300]]` → `<img src="/files/<encoded path>">`; remote images are never loaded:
 *   they become a link "Remote image: <url>" opening in a new tab;
 * - note embeds `![[note]]`, `![[note#Heading]]` → a box with the note's title linking to it and, when `embed`
 *   returns its body, that body (or the section) rendered inside, one level deep.
 */
export function remarkVaultLinks(options: VaultLinksOptions) {
  return (tree: Root): void => transformVaultLinks(tree, { ...options, nested: false });
}

function transformVaultLinks(tree: Root, context: Context): void {
  inlineReferences(tree);
  transformChildren(tree, context, false);
}

function transformChildren(parent: Parent, context: Context, inLink: boolean): void {
  const next: RootContent[] = [];
  for (const child of parent.children) {
    if (child.type === 'text') {
      next.push(...expandText(child, parent, context, inLink));
    } else if (child.type === 'link') {
      const rewritten = rewriteLink(child, context);
      transformChildren(rewritten, context, true);
      next.push(rewritten);
    } else if (child.type === 'image') {
      next.push(rewriteImage(child, parent, context, inLink));
    } else if (child.type === 'paragraph') {
      transformChildren(child, context, inLink);
      next.push(...liftBlocks(child));
    } else {
      if ('children' in child) transformChildren(child, context, inLink);
      next.push(child);
    }
  }
  parent.children = next;
}

function expandText(node: Text, parent: Parent, context: Context, inLink: boolean): RootContent[] {
  const tokens = findWikilinks(node.value);
  if (tokens.length === 0) return [node];
  const out: RootContent[] = [];
  let last = 0;
  for (const token of tokens) {
    if (token.start > last) out.push(text(node.value.slice(last, token.start)));
    out.push(renderWikilink(token, parent, context, inLink));
    last = token.end;
  }
  if (last < node.value.length) out.push(text(node.value.slice(last)));
  return out;
}

function renderWikilink(token: WikilinkToken, parent: Parent, context: Context, inLink: boolean): RootContent {
  const shown = token.alias ?? wikilinkText(token);
  if (token.target === '') {
    return inLink ? text(shown) : linkNode(anchorHref(context, token.subpath ?? ''), shown);
  }
  const path = context.resolve(token.target, 'wikilink', context.notePath);

  if (token.embed && (isImagePath(token.target) || (path !== null && isImagePath(path)))) {
    const size = token.alias ? parseImageSize(token.alias) : null;
    const alt = token.alias && !size ? token.alias : baseName(token.target);
    if (path === null) return broken([text(alt)], token.target);
    return imageNode(path, alt, size);
  }
  if (path === null) return inLink ? text(shown) : broken([text(shown)], token.target);
  if (token.embed && isNotePath(path)) return embedNote(path, token.subpath, token.alias, parent, context, inLink);
  return inLink ? text(shown) : linkNode(vaultHref(path, token.subpath), shown);
}

/** `name`, `name > Heading`, `Heading` for `[[#Heading]]`: what Obsidian shows for a link without alias. */
function wikilinkText({ target, subpath }: WikilinkToken): string {
  if (!subpath) return target;
  const shownSubpath = subpath.split('#').filter(Boolean).join(' > ');
  return target === '' ? shownSubpath : `${target} > ${shownSubpath}`;
}

function rewriteLink(link: Link, context: Context): Link | LucidElement {
  const url = link.url.trim();
  if (url === '') return link;
  if (isExternalTarget(url)) {
    if (!isWebUrl(url)) return blocked(link.children);
    setHastProperties(link, EXTERNAL_LINK_PROPERTIES);
    return link;
  }
  const { target, subpath } = splitUrl(url);
  if (target === '') {
    link.url = anchorHref(context, subpath ?? '');
    return link;
  }
  const path = context.resolve(target, 'markdown', context.notePath);
  if (path === null) return broken(link.children, target);
  link.url = vaultHref(path, subpath);
  return link;
}

function rewriteImage(image: Image, parent: Parent, context: Context, inLink: boolean): RootContent {
  const url = image.url.trim();
  const { alt, size } = splitAltSize(image.alt ?? '');
  if (isRemoteUrl(url)) {
    const label = `Remote image: ${url}`;
    if (inLink) return text(label);
    const link = linkNode(url, label, alt || null);
    setHastProperties(link, EXTERNAL_LINK_PROPERTIES);
    return link;
  }
  if (url === '' || isExternalTarget(url)) return blocked([text(alt || 'image')]);
  const { target, subpath } = splitUrl(url);
  const path = target === '' ? null : context.resolve(target, 'markdown', context.notePath);
  if (path === null) return broken([text(alt || target || url)], target || url);
  if (isNotePath(path)) return embedNote(path, subpath, alt || undefined, parent, context, inLink);
  return imageNode(path, alt, size);
}

function embedNote(path: string, subpath: string | undefined, alias: string | undefined, parent: Parent, context: Context, inLink: boolean): RootContent {
  const href = noteHref(path, subpath);
  const title = alias ?? wikilinkText({ start: 0, end: 0, embed: true, target: noteTitle(path), subpath });
  if (inLink) return text(title);
  if (context.nested || parent.type !== 'paragraph' || path === context.notePath) return linkNode(href, title);

  const children: RootContent[] = [element('div', { className: ['embed-title'] }, [linkNode(href, title)])];
  const body = context.embed ? renderEmbedded(context, path, subpath) : null;
  if (body !== null) children.push(element('div', { className: ['embed-content'] }, body));
  return element('div', { className: ['embed'] }, children, true);
}

/** The embedded note (or its section) as mdast, through the same transforms, with its own embeds as links. */
function renderEmbedded(context: Context, path: string, subpath: string | undefined): RootContent[] | null {
  const markdown = context.embed?.(path) ?? null;
  if (markdown === null) return null;
  const tree = fromMarkdown(stripComments(markdown), {
    extensions: [gfm()],
    mdastExtensions: [gfmFromMarkdown()],
  }) as Root;
  transformRawHtml(tree);
  transformCallouts(tree);
  const blocks = addAnchors(tree, { ids: false });
  const sub: Root = { type: 'root', children: subpath ? selectSection(tree, blocks, subpath) : tree.children };
  detachNotes(sub);
  transformVaultLinks(sub, { ...context, notePath: path, nested: true });
  if (sub.children.length === 0 && subpath) {
    return [{ type: 'paragraph', children: [text(`No section “${subpath}” in this note.`)] }];
  }
  return sub.children;
}

/** `![[note#Heading]]`: the heading and what follows it up to the next heading of the same or a higher level. */
function selectSection(tree: Root, blocks: Map<string, RootContent>, subpath: string): RootContent[] {
  if (subpath.startsWith('^')) {
    const block = blocks.get(subpath.slice(1));
    return block ? [block] : [];
  }
  const wanted = headingSlug(subpath.split('#').filter(Boolean).pop() ?? '');
  const start = tree.children.findIndex((node) => node.type === 'heading' && headingSlug(plainText(node)) === wanted);
  if (start < 0) return [];
  const heading = tree.children[start] as Extract<RootContent, { type: 'heading' }>;
  let end = start + 1;
  while (end < tree.children.length) {
    const node = tree.children[end];
    if (node.type === 'heading' && node.depth <= heading.depth) break;
    end++;
  }
  return tree.children.slice(start, end);
}

/**
 * Footnotes and link definitions of an embedded note would mix with the host note's (`[^1]` twice): footnote
 * references are shown as their label, and definitions dropped (references were inlined already).
 */
function detachNotes(parent: Parent): void {
  const next: RootContent[] = [];
  for (const child of parent.children) {
    if (child.type === 'footnoteDefinition' || child.type === 'definition') continue;
    if (child.type === 'footnoteReference') {
      next.push(text(`[^${child.label ?? child.identifier}]`));
      continue;
    }
    if ('children' in child) detachNotes(child);
    next.push(child);
  }
  parent.children = next;
}

/** `[text][ref]` and `![alt][ref]` become plain links and images, so they go through the same rules. */
function inlineReferences(tree: Root): void {
  const definitions = new Map<string, Definition>();
  const collect = (parent: Parent): void => {
    for (const child of parent.children) {
      if (child.type === 'definition' && !definitions.has(child.identifier)) definitions.set(child.identifier, child);
      else if ('children' in child) collect(child);
    }
  };
  collect(tree);
  const replace = (parent: Parent): void => {
    parent.children = parent.children.map((child): RootContent => {
      if (child.type === 'linkReference') {
        const definition = definitions.get(child.identifier);
        if (!definition) return text(`[${child.label ?? child.identifier}]`);
        const link: Link = { type: 'link', url: definition.url, title: definition.title ?? null, children: child.children };
        replace(link);
        return link;
      }
      if (child.type === 'imageReference') {
        const definition = definitions.get(child.identifier);
        return { type: 'image', url: definition?.url ?? '', title: definition?.title ?? null, alt: child.alt };
      }
      if ('children' in child) replace(child);
      return child;
    });
  };
  replace(tree);
}

/** An embed box cannot sit inside `<p>`: the paragraph is cut around it. */
function liftBlocks(paragraph: Paragraph): RootContent[] {
  if (!paragraph.children.some(isBlockElement)) return [paragraph];
  const out: RootContent[] = [];
  let run: PhrasingContent[] = [];
  const flush = (): void => {
    const trimmed = trimRun(run);
    if (trimmed.length > 0) {
      const data = out.length === 0 ? paragraph.data : undefined;
      out.push({ type: 'paragraph', children: trimmed, ...(data ? { data } : {}) });
    }
    run = [];
  };
  for (const child of paragraph.children) {
    if (isBlockElement(child)) {
      flush();
      out.push(child);
    } else {
      run.push(child);
    }
  }
  flush();
  return out;
}

function trimRun(nodes: PhrasingContent[]): PhrasingContent[] {
  const out = [...nodes];
  while (out.length > 0 && isBlank(out[0])) out.shift();
  while (out.length > 0 && isBlank(out[out.length - 1])) out.pop();
  const first = out[0];
  if (first?.type === 'text') out[0] = text(first.value.trimStart());
  const last = out[out.length - 1];
  if (last?.type === 'text') out[out.length - 1] = text(last.value.trimEnd());
  return out;
}

function isBlank(node: PhrasingContent): boolean {
  return node.type === 'break' || (node.type === 'text' && node.value.trim() === '');
}

function splitUrl(url: string): { target: string; subpath?: string } {
  const hash = url.indexOf('#');
  const target = safeDecode(hash >= 0 ? url.slice(0, hash) : url).trim();
  const subpath = hash >= 0 ? safeDecode(url.slice(hash + 1)).trim() : '';
  return subpath === '' ? { target } : { target, subpath };
}

/** `alt|300` or `alt|300x200` at the end of a markdown image's alt text sets its size, as in Obsidian. */
function splitAltSize(alt: string): { alt: string; size: ReturnType<typeof parseImageSize> } {
  const pipe = alt.lastIndexOf('|');
  if (pipe < 0) return { alt, size: null };
  const size = parseImageSize(alt.slice(pipe + 1));
  return size ? { alt: alt.slice(0, pipe).trim(), size } : { alt, size: null };
}

/** A same-note heading or block link; inside an embed it points to the embedded note's page. */
function anchorHref(context: Context, subpath: string): string {
  if (subpath === '') return context.nested ? noteHref(context.notePath) : '#';
  return context.nested ? noteHref(context.notePath, subpath) : fragmentHref(subpath);
}

function linkNode(url: string, shown: string, title: string | null = null): Link {
  return { type: 'link', url, title, children: [text(shown)] };
}

function imageNode(path: string, alt: string, size: ReturnType<typeof parseImageSize>): Image {
  const image: Image = { type: 'image', url: fileHref(path), alt, title: null };
  if (size) setHastProperties(image, size.height ? { width: size.width, height: size.height } : { width: size.width });
  return image;
}

function broken(children: RootContent[], target: string): LucidElement {
  const kind = isNotePath(target) || !/\.[^./\s]+$/.test(baseName(target)) ? 'note' : 'file';
  return element('span', { className: ['broken-link'], title: `No ${kind} named “${target}”` }, children);
}

function blocked(children: RootContent[]): LucidElement {
  const title = 'Link not followed: only http, https and mailto links open';
  return element('span', { className: ['blocked-link'], title }, children);
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

function noteTitle(path: string): string {
  return baseName(path).replace(/\.md$/i, '');
}
