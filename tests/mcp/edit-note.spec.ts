import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { changelogLines, cleanedAfterEach, fieldOf, filesOf, MCP_VAULT_FILES, ok, openWithMcp, textOf, trailersOf, type McpPair } from '../support/mcp';
import { sha256, snapshot, type TempVault } from '../support/temp-vault';

/**
 * Issue 13: edit_note over a real SDK client. Every edit is checked byte for byte against the file
 * before it (only the target lines change), with raw git: one commit holding the note and the
 * changelog, one changelog line. Refusals change nothing: bytes, HEAD, changelog.
 */

const lists = cleanedAfterEach();

const PLAN = `# Plan

Intro line.

## Status

Active since May.
Owner: Ana.

\`\`\`md
## Status
# Title
\`\`\`

## Next
- ship it
`;

const FILES: Record<string, string> = {
  ...MCP_VAULT_FILES,
  'notes/plan.md': PLAN,
  'notes/log.md': '# Log\n\n## Day\none\n\n## Day\ntwo\n',
  'notes/win.md': '\uFEFF---\r\ntags:\r\n  - ops\r\n---\r\n# Win\r\n\r\n## Steps\r\nOld step.\r\n\r\n## End\r\nbye\r\n',
  'notes/tail.md': '# Tail\n\nno final line break',
  'notes/template.md': '---\ncreated: {{date}}\n---\n# Template\n\n## Body\ntext\n',
};

async function setup(files: Record<string, string> = FILES): Promise<{ tv: TempVault; mcp: McpPair; session: string }> {
  const { tv, mcp } = await openWithMcp(lists, files);
  const session = ok<{ session: string }>(await mcp.call('start_session', { agent: 'claude-code', task: 'Keep the plan current' })).session;
  return { tv, mcp, session };
}

type Written = { status: string; hash: string; edit_id: string; message: string };

/** One edit_note call that must make exactly one commit (the note and the changelog) and one changelog line. */
async function editOnce(
  tv: TempVault,
  mcp: McpPair,
  session: string,
  args: Record<string, unknown>,
): Promise<{ before: string; after: string; result: Written }> {
  const note = args.path as string;
  const before = tv.read(note);
  const head = tv.head();
  const lines = changelogLines(tv).length;
  const result = ok<Written>(await mcp.call('edit_note', { session, reason: 'kept the note current', ...args }));
  expect(result.status).toBe('written');
  expect(tv.git(['rev-parse', 'HEAD~1']).trim()).toBe(head);
  expect(filesOf(tv)).toEqual(['changelog.md', note].sort());
  expect(changelogLines(tv)).toHaveLength(lines + 1);
  expect(changelogLines(tv)[0]).toContain(`^${result.edit_id}`);
  const trailers = trailersOf(tv);
  expect(trailers).toMatchObject({ 'Lucid-Actor': 'agent:claude-code', 'Lucid-Session': session, 'Lucid-Edit': result.edit_id });
  expect(trailers['Lucid-Op']).toBe(args.operation === 'append' ? 'append' : 'update');
  expect(result.hash).toBe(sha256(tv.readBytes(note)));
  expect(tv.git(['status', '--porcelain'])).toBe('');
  return { before, after: tv.read(note), result };
}

/** The vault's files (Lucid's own state in .lucid/ aside), HEAD and status, read with raw fs and git. */
function state(tv: TempVault) {
  const { files, head, status } = snapshot(tv.root);
  const changelog = tv.exists('changelog.md') ? tv.read('changelog.md') : null;
  return { files: Object.fromEntries(Object.entries(files).filter(([file]) => !file.startsWith('.lucid/'))), head, status, changelog };
}

/** One edit_note call that must be refused and change nothing; returns the refusal's sentence. */
async function refusedEdit(tv: TempVault, mcp: McpPair, session: string, args: Record<string, unknown>): Promise<string> {
  const before = state(tv);
  const result = await mcp.call('edit_note', { session, reason: 'tried', ...args });
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  expect(state(tv)).toEqual(before);
  return textOf(result);
}

describe('edit_note: each operation changes only its target lines', () => {
  it('find_replace, replace_section, insert before and after a heading, prepend and append: one commit each, every other byte kept', async () => {
    const { tv, mcp, session } = await setup();
    const note = 'notes/plan.md';

    let step = await editOnce(tv, mcp, session, { path: note, operation: 'find_replace', find: 'since May', replace: 'since June' });
    expect(step.after).toBe(step.before.replace('since May', 'since June'));
    expect(step.result.message).toMatch(/^Replaced the one occurrence of find in notes\/plan\.md \(edit e[a-z2-7]{12}, commit [0-9a-f]{7}\)\.$/);

    step = await editOnce(tv, mcp, session, { path: note, operation: 'find_replace', find: 'Status', replace: 'State', expected_replacements: 2 });
    expect(step.after).toBe(step.before.replaceAll('Status', 'State'));

    // The `## State` inside the code block is not a heading: the section runs from the real one to `## Next`.
    step = await editOnce(tv, mcp, session, { path: note, operation: 'replace_section', heading: '## State', content: 'Paused until the audit.\n' });
    const sectionText = step.before.slice(step.before.indexOf('Active since'), step.before.indexOf('\n\n## Next') + 1);
    expect(step.after).toBe(step.before.replace(sectionText, 'Paused until the audit.\n'));

    step = await editOnce(tv, mcp, session, { path: note, operation: 'insert_after_heading', heading: '## Next', content: '- tell support' });
    expect(step.after).toBe(step.before.replace('## Next\n', '## Next\n- tell support\n'));

    step = await editOnce(tv, mcp, session, { path: note, operation: 'insert_before_heading', heading: '## Next', content: '## Risks\n- the audit\n\n' });
    expect(step.after).toBe(step.before.replace('## Next\n', '## Risks\n- the audit\n\n## Next\n'));

    step = await editOnce(tv, mcp, session, { path: note, operation: 'prepend', content: 'Read this first.' });
    expect(step.after).toBe(`Read this first.\n${step.before}`);

    step = await editOnce(tv, mcp, session, { path: note, operation: 'append', content: 'Last line.' });
    expect(step.after).toBe(`${step.before}\nLast line.\n`);
    // A note that is not one of Lucid's types gets no field.
    expect(step.after.startsWith('Read this first.\n# Plan\n')).toBe(true);
  });

  it("a note of Lucid's types gets updated, and nothing else changes", async () => {
    const { tv, mcp, session } = await setup();
    const { before, after } = await editOnce(tv, mcp, session, { path: 'projects/atlas.md', operation: 'append', content: 'Runs on Postgres.' });
    const updated = fieldOf(after, 'updated');
    expect(updated).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(after).toBe(
      `${before.replace('repo: https://github.com/example-team/atlas\n', `repo: https://github.com/example-team/atlas\nupdated: ${updated}\n`)}\nRuns on Postgres.\n`,
    );
  });

  it("keeps a CRLF note's line endings and byte-order mark, and a missing final line break", async () => {
    const { tv, mcp, session } = await setup();
    let step = await editOnce(tv, mcp, session, { path: 'notes/win.md', operation: 'replace_section', heading: '## Steps', content: 'First.\nSecond.\n' });
    expect(step.after).toBe(step.before.replace('Old step.\r\n', 'First.\r\nSecond.\r\n'));
    step = await editOnce(tv, mcp, session, { path: 'notes/win.md', operation: 'find_replace', find: 'Second.\n\n## End', replace: 'Second.\n\n## Done' });
    expect(step.after).toBe(step.before.replace('## End', '## Done'));
    step = await editOnce(tv, mcp, session, { path: 'notes/win.md', operation: 'append', content: 'PS.\n' });
    expect(step.after).toBe(`${step.before}\r\nPS.\r\n`);
    expect(tv.readBytes('notes/win.md').subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    expect(step.after.replace(/\r\n/g, '')).not.toContain('\n');

    step = await editOnce(tv, mcp, session, { path: 'notes/tail.md', operation: 'append', content: 'more' });
    expect(step.after).toBe('# Tail\n\nno final line break\n\nmore');
  });
});

describe('edit_note: refusals change nothing', () => {
  it('a wrong count, a duplicated heading, a missing heading, a heading only inside a code block: bytes, HEAD and changelog stay', async () => {
    const { tv, mcp, session } = await setup();
    const count = await refusedEdit(tv, mcp, session, { path: 'notes/plan.md', operation: 'find_replace', find: '## Status', replace: '## State' });
    expect(count).toContain('find occurs 2 times in notes/plan.md (lines 5 and 11), not 1 as expected_replacements says; nothing was changed.');
    expect(await refusedEdit(tv, mcp, session, { path: 'notes/plan.md', operation: 'find_replace', find: 'since March', replace: 'x' })).toContain(
      'find was not found in notes/plan.md',
    );
    const twice = await refusedEdit(tv, mcp, session, { path: 'notes/log.md', operation: 'replace_section', heading: '## Day', content: 'three' });
    expect(twice).toContain('notes/log.md has the heading "## Day" twice, at lines 3 and 6');
    const missing = await refusedEdit(tv, mcp, session, { path: 'notes/plan.md', operation: 'insert_after_heading', heading: '## Risks', content: 'x' });
    expect(missing).toBe(
      'notes/plan.md has no heading "## Risks"; nothing was changed. Its headings: "# Plan" (line 1), "## Status" (line 5), "## Next" (line 15).',
    );
    const fenced = await refusedEdit(tv, mcp, session, { path: 'notes/plan.md', operation: 'insert_before_heading', heading: '# Title', content: 'x' });
    expect(fenced).toContain('has no heading "# Title"');
    expect(await refusedEdit(tv, mcp, session, { path: 'notes/plan.md', operation: 'replace_section', heading: 'Status', content: 'x' })).toContain(
      'heading must be one heading line with its level, e.g. "## Status"',
    );
  });

  it('refuses a field the operation does not use, a missing field and a missing note', async () => {
    const { tv, mcp, session } = await setup();
    // The SDK checks the input against the contract before Lucid runs and wraps the contract's sentence in its own prefix.
    expect(
      await refusedEdit(tv, mcp, session, { path: 'notes/plan.md', operation: 'find_replace', find: 'Intro', replace: 'Outro', content: 'Outro' }),
    ).toMatch(/^MCP error -32602: .*content is not used by find_replace \(the new text of find_replace is replace\); leave it out\. at content$/);
    expect(await refusedEdit(tv, mcp, session, { path: 'notes/plan.md', operation: 'replace_section', content: 'x' })).toContain(
      'heading is required for replace_section, e.g. "## Status".',
    );
    expect(await refusedEdit(tv, mcp, session, { path: 'notes/plan.md', operation: 'rewrite', content: 'x' })).toContain(
      'operation must be find_replace, replace_section, insert_before_heading, insert_after_heading, prepend or append.',
    );
    expect(await refusedEdit(tv, mcp, session, { path: 'notes/none.md', operation: 'append', content: 'x' })).toBe(
      'notes/none.md does not exist; edit_note changes a note that exists. Use write_note mode create to make it.',
    );
    expect(await refusedEdit(tv, mcp, session, { path: 'inbox/x.md', operation: 'append', content: 'x' })).toContain('use propose_to_inbox');
    expect(await refusedEdit(tv, mcp, session, { path: 'notes/template.md', operation: 'append', content: 'x' })).toContain(
      'notes/template.md cannot be changed by an agent until a person fixes it',
    );
    expect(await refusedEdit(tv, mcp, session, { path: 'notes/log.md', operation: 'prepend', content: '---\ntitle: [broken\n---' })).toMatch(
      /Your edit breaks the front matter of notes\/log\.md: .* Nothing was changed\. Send an edit that keeps the front matter valid\./,
    );
  });
});

describe('edit_note: under the lock, stale hashes and secrets', () => {
  it("is computed on the note as it is then: a person's uncommitted line is committed as theirs first and kept", async () => {
    const { tv, mcp, session } = await setup();
    tv.write('notes/plan.md', PLAN.replace('Intro line.', 'Intro line, typed in Obsidian.'));
    const head = tv.head();
    const result = ok<Written>(
      await mcp.call('edit_note', {
        session,
        path: 'notes/plan.md',
        operation: 'find_replace',
        find: 'Owner: Ana.',
        replace: 'Owner: Grace.',
        reason: 'owner',
      }),
    );
    expect(result.message).toMatch(/notes\/plan\.md had changes (human:)?Test Person saved and had not committed/);
    expect(tv.git(['rev-parse', 'HEAD~2']).trim()).toBe(head);
    expect(tv.git(['log', '-2', '--format=%an']).trim().split('\n')).toEqual(['agent:claude-code', 'Test Person']);
    expect(tv.read('notes/plan.md')).toBe(PLAN.replace('Intro line.', 'Intro line, typed in Obsidian.').replace('Owner: Ana.', 'Owner: Grace.'));
  });

  it('with a stale expected_hash, the edit applied to the version read goes to the inbox as a conflict; the note keeps the person’s version', async () => {
    const { tv, mcp, session } = await setup();
    const read = ok<{ hash: string }>(await mcp.call('read_note', { path: 'notes/plan.md' }));
    tv.write('notes/plan.md', PLAN.replace('Intro line.', 'Intro, rewritten by a person.'));
    tv.git(['commit', '-qam', 'my intro']);
    const person = tv.read('notes/plan.md');
    const commits = tv.commitCount();
    const result = await mcp.call('edit_note', {
      session,
      path: 'notes/plan.md',
      operation: 'insert_after_heading',
      heading: '## Next',
      content: '- tell support',
      expected_hash: read.hash,
      reason: 'support',
    });
    expect(result.isError).toBe(true);
    const data = result.structuredContent as { status: string; inbox_path: string; hash: string; message: string };
    expect(data.status).toBe('conflict');
    expect(data.hash).toBe(sha256(person));
    expect(data.message).toContain(`read_note notes/plan.md again and redo your change on the current version (hash ${data.hash})`);
    expect(tv.read('notes/plan.md')).toBe(person);
    expect(tv.commitCount()).toBe(commits + 1);
    expect(filesOf(tv)).toEqual(['changelog.md', data.inbox_path]);
    const inbox = tv.read(data.inbox_path);
    expect(fieldOf(inbox, 'flag')).toBe('conflict');
    expect(fieldOf(inbox, 'action')).toBe('update');
    expect(fieldOf(inbox, 'base_blob')).toBe(tv.git(['rev-parse', 'HEAD~2:notes/plan.md']).trim());
    expect(inbox).toContain(`\`\`\`\`markdown\n${PLAN.replace('## Next\n', '## Next\n- tell support\n')}\`\`\`\`\n`);
  });

  it('content that looks like a secret is never committed: the edit goes to the inbox, masked', async () => {
    const { tv, mcp, session } = await setup();
    const token = `ghp_${'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'}`;
    const result = await mcp.call('edit_note', { session, path: 'notes/plan.md', operation: 'append', content: `Push with ${token}.`, reason: 'push' });
    const data = result.structuredContent as { status: string; inbox_path: string };
    expect(data.status).toBe('possible_secret');
    expect(tv.read('notes/plan.md')).toBe(PLAN);
    const inbox = tv.read(data.inbox_path);
    expect(inbox).not.toContain(token);
    expect(inbox).toContain('Push with ghp_…[masked].');
  });

  it("a person's uncommitted text never goes into the agent's proposal commit: a secret's proposal is composed on HEAD", async () => {
    const { tv, mcp, session } = await setup();
    const typed = PLAN.replace('Intro line.', 'Unsaved words of a person.');
    tv.write('notes/plan.md', typed);
    const token = `ghp_${'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'}`;
    const result = await mcp.call('edit_note', { session, path: 'notes/plan.md', operation: 'append', content: `Push with ${token}.`, reason: 'push' });
    const data = result.structuredContent as { status: string; inbox_path: string };
    expect(data.status).toBe('possible_secret');
    expect(tv.read('notes/plan.md')).toBe(typed);
    const inbox = tv.git(['show', `HEAD:${data.inbox_path}`]);
    expect(inbox).not.toContain('Unsaved words');
    expect(inbox).toContain('Intro line.');
    expect(fieldOf(inbox, 'base_blob')).toBe(tv.git(['rev-parse', 'HEAD:notes/plan.md']).trim());
    // git grep exits 1 when no committed file holds the words.
    expect(spawnSync('git', ['grep', '-q', 'Unsaved words', 'HEAD'], { cwd: tv.root }).status).toBe(1);
  });

  it('with an expected_hash Lucid never saw, the proposal is composed on HEAD, not on uncommitted text, and has no base_blob', async () => {
    const { tv, mcp, session } = await setup();
    const typed = PLAN.replace('Intro line.', 'Unsaved words of a person.');
    tv.write('notes/plan.md', typed);
    const stale = 'f'.repeat(64);
    const edited = await mcp.call('edit_note', {
      session,
      path: 'notes/plan.md',
      operation: 'append',
      content: 'More.',
      expected_hash: stale,
      reason: 'more',
    });
    const data = edited.structuredContent as { status: string; inbox_path: string };
    expect(data.status).toBe('conflict');
    const inbox = tv.git(['show', `HEAD:${data.inbox_path}`]);
    expect(inbox).toContain('More.');
    expect(inbox).not.toContain('Unsaved words');
    expect(inbox).not.toMatch(/^base_blob:/m);
    const written = await mcp.call('write_note', {
      session,
      path: 'notes/plan.md',
      mode: 'replace',
      content: '# Plan\n\nNew.\n',
      expected_hash: stale,
      reason: 'r',
    });
    const proposal = written.structuredContent as { status: string; inbox_path: string };
    expect(proposal.status).toBe('conflict');
    expect(tv.git(['show', `HEAD:${proposal.inbox_path}`])).not.toMatch(/^base_blob:/m);
  });
});

describe('write_note: create on an existing path, and notes that are not Lucid’s', () => {
  it('create on a path that exists is an error naming the note and its hash; nothing goes to the inbox', async () => {
    const { tv, mcp, session } = await setup();
    const before = state(tv);
    const result = await mcp.call('write_note', {
      session,
      path: 'notes/handbook.md',
      mode: 'create',
      content: '# Handbook\n\nNew.\n',
      reason: 'new handbook',
    });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    const hash = sha256(tv.readBytes('notes/handbook.md'));
    expect(textOf(result)).toBe(
      `notes/handbook.md ("Handbook") already exists, with hash ${hash}; nothing was written. To change it, use edit_note for a part, or write_note mode replace with expected_hash ${hash} for the whole note (read_note it first). To keep both, create it under another path.`,
    );
    expect(state(tv)).toEqual(before);
    expect(tv.git(['ls-files', 'inbox'])).toBe('');
  });

  it("append, set_fields and replace on a person's own note add no field; create adds none either", async () => {
    const { tv, mcp, session } = await setup();
    const handbook = tv.read('notes/handbook.md');
    ok(await mcp.call('write_note', { session, path: 'notes/handbook.md', mode: 'append', content: 'Deploy on Tuesdays.', reason: 'deploys' }));
    expect(tv.read('notes/handbook.md')).toBe(`${handbook}\nDeploy on Tuesdays.\n`);
    ok(await mcp.call('write_note', { session, path: 'notes/handbook.md', mode: 'set_fields', fields: { tags: ['team'] }, reason: 'tag' }));
    expect(tv.read('notes/handbook.md')).toBe(`---\ntags:\n  - team\n---\n\n${handbook}\nDeploy on Tuesdays.\n`);
    const { hash } = ok<{ hash: string }>(await mcp.call('read_note', { path: 'notes/handbook.md' }));
    ok(
      await mcp.call('write_note', {
        session,
        path: 'notes/handbook.md',
        mode: 'replace',
        content: '# Handbook\n\nShort.\n',
        expected_hash: hash,
        reason: 'short',
      }),
    );
    expect(tv.read('notes/handbook.md')).toBe('# Handbook\n\nShort.\n');
    ok(await mcp.call('write_note', { session, path: 'notes/new.md', mode: 'create', content: '# New\n', reason: 'new' }));
    expect(tv.read('notes/new.md')).toBe('# New\n');
  });
});

describe('lucid edit', () => {
  it('makes the same edit as edit_note from the command line, one commit', async () => {
    // The session started over MCP stays open for the CLI, as an agent's sessions do across its tools.
    const { tv, session } = await setup();
    const run = (args: string[]) =>
      spawnSync(path.resolve('bin/lucid'), [...args, '--vault', tv.root], {
        cwd: tv.tempDir('cwd'),
        encoding: 'utf8',
        env: { ...tv.env, LUCID_USER: 'Cli Person' } as unknown as NodeJS.ProcessEnv,
        timeout: 60_000,
      });
    const head = tv.head();
    const done = run([
      'edit',
      'notes/plan.md',
      '--session',
      session,
      '--operation',
      'find_replace',
      '--find',
      'Owner: Ana.\n',
      '--replace',
      '',
      '--reason',
      'no owner',
    ]);
    expect(done.stderr).toBe('');
    expect(done.status).toBe(0);
    expect(done.stdout).toMatch(/^Replaced the one occurrence of find in notes\/plan\.md/);
    expect(tv.read('notes/plan.md')).toBe(PLAN.replace('Owner: Ana.\n', ''));
    expect(tv.git(['rev-parse', 'HEAD~1']).trim()).toBe(head);
    expect(filesOf(tv)).toEqual(['changelog.md', 'notes/plan.md']);

    const twice = run([
      'edit',
      'notes/log.md',
      '--session',
      session,
      '--operation',
      'replace_section',
      '--heading',
      '## Day',
      '--content',
      'x',
      '--reason',
      'x',
    ]);
    expect(twice.status).toBe(1);
    expect(twice.stderr).toContain('has the heading "## Day" twice, at lines 3 and 6');
    const usage = run(['edit', 'notes/log.md', '--session', session, '--operation', 'find_replace', '--find', 'one', '--reason', 'x']);
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain('replace is required for find_replace (empty deletes the text). (give it with --replace)');
  });
});
