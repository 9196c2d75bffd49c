import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseFrontmatter } from '../../lib/vault/notes/frontmatter';
import { computeBacklinks, createLinkResolver } from '../../lib/vault/notes/link-resolver';
import { parseLinks, type LinkKind, type LinkResolver, type ParsedLink } from '../../lib/vault/notes/links';

// The real vaults are read in place and never written: they are read-only fixtures shared by every checkout.
const vaultsRoot = path.resolve(process.cwd(), '../shared/fixtures/vaults');
const exists = existsSync(vaultsRoot);
if (!exists) {
  console.warn(`Skipping the fixture-vault link tests: ${vaultsRoot} does not exist in this checkout.`);
}

/** One link resolved by hand, by reading the vault's files and applying Obsidian's rules. */
interface HandResolved {
  from: string;
  link: string;
  expected: string | null;
  /** When the same raw text appears both in front matter and in the body. */
  kind?: LinkKind;
  why: string;
}

/** Text that appears in the note but must not come out of parseLinks. */
interface NotALink {
  from: string;
  text: string;
  why: string;
}

interface LoadedVault {
  root: string;
  files: string[];
  resolver: LinkResolver;
  linksOf(notePath: string): ParsedLink[];
}

const loaded = new Map<string, LoadedVault>();

function loadVault(name: string): LoadedVault {
  const cached = loaded.get(name);
  if (cached) return cached;
  const root = path.join(vaultsRoot, name, 'vault');
  const files = listFiles(root);
  const vault: LoadedVault = {
    root,
    files,
    resolver: createLinkResolver(files),
    linksOf(notePath) {
      // As Obsidian does, front matter that does not parse yields no properties, and so no property links.
      const parsed = parseFrontmatter(readFileSync(path.join(root, notePath), 'utf8'));
      return parseLinks(parsed.parts.body, parsed.ok ? parsed.data : undefined);
    },
  };
  loaded.set(name, vault);
  return vault;
}

function listFiles(root: string, dir = ''): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const relative = dir === '' ? entry.name : `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      if (relative !== '.obsidian') files.push(...listFiles(root, relative));
    } else {
      files.push(relative);
    }
  }
  return files;
}

function checkHandResolved(vaultName: string, cases: readonly HandResolved[], notLinks: readonly NotALink[]) {
  it.each(cases)('$from: $link → $expected ($why)', ({ from, link, expected, kind }) => {
    const vault = loadVault(vaultName);
    const found = vault.linksOf(from).find((parsed) => parsed.raw === link && (kind === undefined || parsed.kind === kind));
    expect(found, `${link} should be parsed from ${from}`).toBeDefined();
    expect(vault.resolver.resolve(found!.target, from, found!.kind)).toBe(expected);
  });

  it.each(notLinks)('$from: $text is not a link ($why)', ({ from, text }) => {
    const vault = loadVault(vaultName);
    expect(readFileSync(path.join(vault.root, from), 'utf8')).toContain(text);
    expect(vault.linksOf(from).filter((parsed) => text.includes(parsed.raw))).toEqual([]);
  });
}

const tasksDocs: HandResolved[] = [
  { from: 'Queries/Global Query.md', link: '[filters](Filters)', expected: 'Queries/Filters.md', why: 'markdown link without .md, relative' },
  { from: 'Queries/Global Query.md', link: '[layout options](Layout)', expected: 'Queries/Layout.md', why: 'markdown link, same folder' },
  { from: 'Editing/Create or edit Task.md', link: '[[Dates#Due date|due]]', expected: 'Getting Started/Dates.md', why: 'heading and alias, other folder' },
  {
    from: 'Editing/Create or edit Task.md',
    link: '[[#Hotkey and keyboard shortcut conflict]]',
    expected: 'Editing/Create or edit Task.md',
    why: 'same-note heading',
  },
  {
    from: 'Editing/Create or edit Task.md',
    link: '[[Status Types#DONE|DONE status type]]',
    expected: 'Getting Started/Statuses/Status Types.md',
    why: 'note two folders deep',
  },
  {
    from: 'Getting Started/Statuses/Custom Statuses.md',
    link: '[[Statuses]]',
    expected: 'Getting Started/Statuses.md',
    why: 'note named like the linking note’s folder, one level up',
  },
  {
    from: 'Getting Started/About Getting Started.md',
    link: '[[Getting Started]]',
    expected: 'Getting Started/Getting Started.md',
    why: 'note named like its folder, same folder',
  },
  {
    from: 'How To/Find tasks with invalid data.md',
    link: '[[Getting Started#Limitations and warnings|Limitations and warnings parsing tasks]]',
    expected: 'Getting Started/Getting Started.md',
    why: 'folder-named note with heading and alias',
  },
  {
    from: 'Support and Help/Known Limitations.md',
    link: '![[Dataview Format#Limitations of Dataview Format]]',
    expected: 'Reference/Task Formats/Dataview Format.md',
    why: 'heading embed; Other Plugins/Dataview.md is a different name',
  },
  { from: 'Other Plugins/About Other Plugins.md', link: '[[Dataview]]', expected: 'Other Plugins/Dataview.md', why: 'same folder' },
  { from: 'Quick Reference.md', link: '[[Filters#Filters for Dates in Tasks\\|Status]]', expected: 'Queries/Filters.md', why: 'escaped alias pipe in a table' },
  { from: 'Advanced/Styling.md', link: '[[Backlinks\\|backlink]]', expected: 'Queries/Backlinks.md', why: 'table alias; not How To/How to style backlinks.md' },
  { from: 'Queries/Layout.md', link: '[[#Hide and Show Tree\\|Tree]]', expected: 'Queries/Layout.md', why: 'same-note heading with table alias' },
  { from: 'Queries/Layout.md', link: '[[Urgency]]', expected: 'Advanced/Urgency.md', why: 'by name, in a table' },
  { from: 'Queries/Sorting.md', link: '[[Custom Sorting|custom sorting]]', expected: 'Scripting/Custom Sorting.md', why: 'alias' },
  {
    from: 'How To/Style custom statuses.md',
    link: '[[Check your Statuses]]',
    expected: 'Getting Started/Statuses/Check your Statuses.md',
    why: 'inside a callout',
  },
  {
    from: '_meta/templates/new documentation file.md',
    link: '[[standard frontmatter]]',
    expected: '_meta/templates/standard frontmatter.md',
    why: 'same folder, inside a Templater tag',
  },
  {
    from: 'Advanced/Styling.md',
    link: '![[Sample HTML - Full mode]]',
    expected: 'snippets-embedded-in-multiple-pages/Sample HTML - Full mode.md',
    why: 'note embed inside a quote',
  },
  { from: 'Getting Started/On Completion.md', link: '![[on-completion-before.png]]', expected: null, why: 'image left out of the export, embedded in a table' },
  {
    from: 'How To/How to style buttons.md',
    link: '![Task buttons with default style](../images/tasks-buttons-default.png)',
    expected: null,
    why: 'markdown image left out of the export',
  },
  { from: 'Editing/Create or edit Task.md', link: '![Create or Edit Modal](../images/modal.png)', expected: null, why: 'markdown image, ../ path' },
];

const tasksDocsNotLinks: NotALink[] = [
  {
    from: 'Getting Started/Obsidian Properties.md',
    text: 'sample_link_property: "[[yaml_all_property_types_populated]]"',
    why: 'front matter shown in a fenced yaml block',
  },
  { from: 'migration.md', text: '`![[]]`', why: 'code span' },
  { from: 'Support and Help/Known Limitations.md', text: '`![[....]]`', why: 'code span' },
];

const tasksDemo: HandResolved[] = [
  {
    from: 'Test Data/all_link_types.md',
    link: '[markdownLink](markdownLink.md)',
    expected: 'Test Attachments/markdownLink.md',
    why: 'markdown link found by name in another folder',
  },
  { from: 'Test Data/all_link_types.md', link: '[[wikilink|wikilink with alias]]', expected: 'Test Attachments/wikilink.md', why: 'alias' },
  {
    from: 'Test Data/all_link_types.md',
    link: '[[#heading#sub-heading||internal wikilink with alias and two headings]]',
    expected: 'Test Data/all_link_types.md',
    why: 'same note, two headings, doubled pipe',
  },
  { from: 'Test Data/all_link_types.md', link: '[[wikilink#^block]]', expected: 'Test Attachments/wikilink.md', why: 'block reference' },
  {
    from: 'Test Data/all_link_types.md',
    link: '[markdownLink with alias and block](markdownLink.md#^block)',
    expected: 'Test Attachments/markdownLink.md',
    why: 'markdown block reference',
  },
  {
    from: 'Test Data/link_in_task_markdown_link.md',
    link: '[link_in_task_markdown_link](Test%20Data/link_in_task_markdown_link.md)',
    expected: 'Test Data/link_in_task_markdown_link.md',
    why: 'URL-encoded vault path after the relative one fails',
  },
  {
    from: 'Test Data/link_in_task_markdown_link.md',
    link: '[spaces everywhere](Manual%20Testing/Smoke%20Testing%20the%20Tasks%20Plugin#How%20the%20tests%20work)',
    expected: 'Manual Testing/Smoke Testing the Tasks Plugin.md',
    why: 'encoded path without .md, encoded heading',
  },
  {
    from: 'Test Data/link_in_task_markdown_link.md',
    link: '[link_in_task_markdown_link](pa#th/path/link_in_task_markdown_link.md)',
    expected: null,
    why: 'the # starts the heading, so the target is pa',
  },
  { from: 'Test Data/link_in_task_markdown_link.md', link: '[a_pdf_file](a_pdf_file.pdf)', expected: null, why: 'missing attachment' },
  {
    from: 'Test Data/link_in_task_markdown_link.md',
    link: '[heading](#heading)',
    expected: 'Test Data/link_in_task_markdown_link.md',
    why: 'markdown same-note heading',
  },
  {
    from: 'Test Data/link_in_task_wikilink.md',
    link: '[[Test Data/link_in_task_wikilink#heading_link]]',
    expected: 'Test Data/link_in_task_wikilink.md',
    why: 'vault path with heading',
  },
  { from: 'Test Data/link_in_task_wikilink.md', link: '[[link_in_task_wikilink.md]]', expected: 'Test Data/link_in_task_wikilink.md', why: 'explicit .md' },
  { from: 'Test Data/link_in_task_wikilink.md', link: '[[a_pdf_file.pdf]]', expected: null, why: 'missing attachment' },
  { from: 'Test Data/link_in_task_wikilink_different_case.md', link: '[[liNk_in_YaMl]]', expected: 'Test Data/link_in_yaml.md', why: 'case-insensitive' },
  { from: 'Test Data/link_is_broken.md', link: '[[broken link - do not fix me]]', expected: null, why: 'broken on purpose' },
  { from: 'Test Data/links_everywhere.md', link: '[[link_in_yaml]]', expected: 'Test Data/link_in_yaml.md', kind: 'frontmatter', why: 'front-matter link' },
  {
    from: 'Test Data/links_everywhere.md',
    link: '[[#A link in a link_in_heading]]',
    expected: 'Test Data/links_everywhere.md',
    kind: 'frontmatter',
    why: 'front-matter same-note heading',
  },
  { from: 'Test Data/links_everywhere.md', link: '[[link_in_heading]]', expected: 'Test Data/link_in_heading.md', why: 'link inside a heading' },
  {
    from: 'Test Data/internal_heading_links.md',
    link: '[[Other File#Some Header]]',
    expected: 'Manual Testing/Internal Heading Links/Other File.md',
    why: 'heading in a note elsewhere',
  },
  {
    from: 'Manual Testing/Seeing the Query as HTML/HTML from Query.md',
    link: '![[HTML from Query - select an element.png|400]]',
    expected: null,
    why: 'sized image embed, image left out',
  },
  { from: 'Test Attachments/Link to Access links file.md', link: '[[Access links]]', expected: 'How To/Access links.md', why: 'by name' },
  {
    from: 'Other Plugins/Dataview/Parent-Child relationships - Searches.md',
    link: '![[Parent-Child relationships - Searches - Tasks#1.1 Original Order]]',
    expected: 'Other Plugins/Dataview/Parent-Child relationships - Searches - Tasks.md',
    why: 'heading embed, same folder',
  },
  {
    from: 'Manual Testing/Task Toggling Scenarios/Embed Task in to Note.md',
    link: '![[#^ca47c7]]',
    expected: 'Manual Testing/Task Toggling Scenarios/Embed Task in to Note.md',
    why: 'same-note block embed',
  },
];

const tasksDemoNotLinks: NotALink[] = [
  { from: 'Manual Testing/Frontmatter/Project Search.md', text: "[[{{query.file.property('project')}}]]", why: 'fenced tasks block' },
  { from: 'Test Data/comments_html_style.md', text: '<!-- [[comments_markdown_style]]  -->', why: 'HTML comment, which Obsidian ignores too' },
  {
    from: 'Test Data/comments_markdown_style.md',
    text: '%% [[comments_html_style]]  %%',
    why: 'Obsidian comment: hidden by Lucid, though Obsidian’s cache indexes it',
  },
];

const kepano: HandResolved[] = [
  { from: 'Categories/Books.md', link: '![[Books.base]]', expected: null, why: '.base file left out of the export' },
  { from: 'Categories/Movies.md', link: '![[Movies.base#Favorites]]', expected: null, why: '.base view embed, left out' },
  { from: 'Categories/Places.md', link: '![[Map.base]]', expected: null, why: '.base left out' },
  { from: 'Categories/Podcasts.md', link: '[[Podcast episodes]]', expected: 'Categories/Podcast episodes.md', why: 'front matter, same folder' },
  { from: 'Clippings/Buy wisely.md', link: '[[Clippings]]', expected: 'Categories/Clippings.md', why: 'note named like the linking note’s folder' },
  { from: 'Clippings/Buy wisely.md', link: '[[Product usage analysis]]', expected: 'Notes/Product usage analysis.md', why: 'front-matter list' },
  { from: 'Clippings/Buy wisely.md', link: '[[Published]]', expected: null, why: 'unwritten note' },
  { from: 'Notes/Product usage analysis.md', link: '[[Buy wisely]]', expected: 'Clippings/Buy wisely.md', why: 'body link to another folder' },
  { from: 'Notes/Product usage analysis.md', link: '![[Products.base#Cost per use]]', expected: null, why: '.base view embed' },
  {
    from: 'Notes/Evergreen notes turn ideas into objects that you can manipulate.md',
    link: '[[evergreen]]',
    expected: 'Categories/Evergreen.md',
    why: 'case-insensitive',
  },
  {
    from: 'Notes/Evergreen notes turn ideas into objects that you can manipulate.md',
    link: '[[Evergreen]]',
    expected: 'Categories/Evergreen.md',
    why: 'front matter',
  },
  {
    from: 'Notes/Evergreen notes turn ideas into objects that you can manipulate.md',
    link: '[[Everything is a remix]]',
    expected: null,
    why: 'unwritten note',
  },
  { from: 'Notes/2023-09-12 Meeting with Steph.md', link: '[[Out of Control]]', expected: 'References/Out of Control.md', why: 'body link' },
  {
    from: 'Notes/2023-09-12 Meeting with Steph.md',
    link: '[[Emergence]]',
    expected: null,
    kind: 'wikilink',
    why: 'unwritten, in the body as well as the front matter',
  },
  { from: 'Notes/2023-09-12 Meeting with Steph.md', link: '[[Steph Ango]]', expected: 'References/Steph Ango.md', why: 'front-matter list' },
  { from: 'References/Out of Control.md', link: '[[out-of-control.jpg]]', expected: null, why: 'cover image left out' },
  { from: 'References/Out of Control.md', link: '[[Kevin Kelly]]', expected: 'References/Kevin Kelly.md', why: 'front matter, same folder' },
  { from: 'References/The Machine Stops.md', link: '[[E. M. Forster]]', expected: null, why: 'dots in a name are not an extension; unwritten' },
  { from: 'References/Well Made 145 Kevin Kelly.md', link: '[[Well Made]]', expected: 'References/Well Made.md', why: 'name is a prefix of the linking note' },
  { from: 'Categories/Evergreen.md', link: '[[Composability|composable]]', expected: null, why: 'aliased unwritten note' },
  { from: 'Templates/Monthly Note Template.md', link: '[[2023-06]]', expected: null, why: 'front matter, no note of that name' },
  { from: 'References/Kyoto.md', link: '![[Map.base#Location]]', expected: null, why: '.base view embed' },
];

const kepanoNotLinks: NotALink[] = [{ from: 'Readme.md', text: '[Obsidian](https://obsidian.md/)', why: 'external URL' }];

// This vault has 10 notes and 11 link-like texts; every one is here (7 links, 4 texts that are not links).
const agentMemory: HandResolved[] = [
  { from: 'Home.md', link: '[[todos/Active TODOs]]', expected: 'todos/Active TODOs.md', why: 'vault path' },
  { from: 'Home.md', link: '[[sessions/Session Log]]', expected: 'sessions/Session Log.md', why: 'vault path' },
  { from: 'Home.md', link: '[[projects/Projects]]', expected: 'projects/Projects.md', why: 'vault path' },
  { from: 'Home.md', link: '[[domains/Domains]]', expected: 'domains/Domains.md', why: 'vault path' },
  { from: 'Home.md', link: '[[patterns/Universal Patterns]]', expected: 'patterns/Universal Patterns.md', why: 'vault path with a space' },
  { from: 'patterns/Universal Patterns.md', link: '[[domains/Domains|domains]]', expected: 'domains/Domains.md', why: 'aliased path' },
  { from: 'templates/Project.md', link: '[[domains/...]]', expected: null, why: 'template placeholder' },
];

const agentMemoryNotLinks: NotALink[] = [
  { from: 'Home.md', text: '`[[note name]]`', why: 'code span' },
  {
    from: 'templates/Session Note.md',
    text: '- "[[projects/{{project-name}}/{{project-name}}]]"',
    why: 'front matter that is not valid YAML (created: {{date}}) has no properties',
  },
  {
    from: 'templates/Component Note.md',
    text: 'project: "[[projects/{{project-name}}/{{project-name}}]]"',
    why: 'front matter that is not valid YAML has no properties',
  },
  {
    from: 'templates/Architecture Decision.md',
    text: 'project: "[[projects/{{project-name}}/{{project-name}}]]"',
    why: 'front matter that is not valid YAML has no properties',
  },
];

describe.skipIf(!exists)('links in the fixture vaults, resolved by hand', () => {
  describe('obsidian-tasks-docs', () => {
    checkHandResolved('obsidian-tasks-docs', tasksDocs, tasksDocsNotLinks);

    it('leaves only the left-out images unresolved across the whole vault', () => {
      const vault = loadVault('obsidian-tasks-docs');
      const notes = vault.files.filter((file) => file.endsWith('.md'));
      const unresolved = notes.flatMap((from) =>
        vault
          .linksOf(from)
          .filter((link) => vault.resolver.resolve(link.target, from, link.kind) === null)
          .map((link) => link.target),
      );
      expect(unresolved.length).toBeGreaterThan(0);
      expect(unresolved.filter((target) => !/\.(png|gif|jpe?g|svg)$/i.test(target))).toEqual([]);
    });
  });

  describe('obsidian-tasks-demo', () => {
    checkHandResolved('obsidian-tasks-demo', tasksDemo, tasksDemoNotLinks);

    it('computes the backlinks of a note linked from bodies and front matter', () => {
      const vault = loadVault('obsidian-tasks-demo');
      const linksByPath = new Map(vault.files.filter((file) => file.endsWith('.md')).map((file) => [file, vault.linksOf(file)] as const));
      const backlinks = computeBacklinks(linksByPath, vault.resolver);
      expect(backlinks.get('Test Data/link_in_yaml.md')).toEqual([
        { from: 'Test Data/link_in_task_wikilink_different_case.md', line: 3 },
        { from: 'Test Data/links_everywhere.md', line: 0 },
        { from: 'Test Data/query_using_properties.md', line: 0 },
      ]);
    });
  });

  describe('kepano-obsidian', () => {
    checkHandResolved('kepano-obsidian', kepano, kepanoNotLinks);

    it('computes the backlinks of a person linked only from front matter', () => {
      const vault = loadVault('kepano-obsidian');
      const linksByPath = new Map(vault.files.filter((file) => file.endsWith('.md')).map((file) => [file, vault.linksOf(file)] as const));
      expect(computeBacklinks(linksByPath, vault.resolver).get('References/Steph Ango.md')).toEqual([
        { from: 'Clippings/Buy wisely.md', line: 0 },
        { from: 'Clippings/In good hands.md', line: 0 },
        { from: 'Notes/2023-09-12 Meeting with Steph.md', line: 0 },
        { from: 'Notes/Evergreen notes turn ideas into objects that you can manipulate.md', line: 0 },
        { from: 'References/Brown butter nectarine tart.md', line: 0 },
        { from: 'References/Well Made.md', line: 0 },
      ]);
    });
  });

  describe('agent-memory-template', () => {
    checkHandResolved('agent-memory-template', agentMemory, agentMemoryNotLinks);
  });
});
