import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach } from 'vitest';
import { buildServer, type LucidMcpServer } from '../../mcp/tools';
import type { Vault } from '../../lib/vault/vault';
import { makeTempVault, type TempVault } from './temp-vault';

/** A vault with a project, decisions, a skill, an earlier session and a person's note. */
const BIN = path.resolve('bin/lucid');

export const MCP_VAULT_FILES: Record<string, string> = {
  'projects/atlas.md': `---
type: project
name: Atlas
status: active
repo: https://github.com/example-team/atlas
---

# Atlas

The billing service.
`,
  'decisions/atlas-use-postgres.md': `---
type: decision
date: 2026-11-01
project: "[[projects/atlas]]"
status: accepted
---

# Use Postgres for the ledger
`,
  'decisions/atlas-use-mysql.md': `---
type: decision
date: 2026-10-01
project: "[[projects/atlas]]"
status: superseded
superseded_by: "[[decisions/atlas-use-postgres]]"
---

# Use MySQL
`,
  'skills/triage-flaky-tests.md': `---
type: skill
name: triage-flaky-tests
version: 2
trigger: a test passes and fails on the same code (flaky tests)
last_updated: 2026-11-01
---

1. Run the test 20 times.
`,
  'skills/write-release-notes.md': `---
type: skill
name: write-release-notes
version: 1
trigger: before a release is tagged
last_updated: 2026-11-01
---

Collect the changes.
`,
  'sessions/20261110-090000-cursor-abcd.md': `---
type: session
agent: cursor
task: Fix the flaky invoice test
started: 2026-11-10T09:00:00+00:00
ended: 2026-11-10T09:30:00+00:00
outcome: done
project: "[[projects/atlas]]"
---

# Fix the flaky invoice test
`,
  'notes/handbook.md': '# Handbook\n\nHow we work. See [[projects/atlas]].\n',
};

/** A connected in-memory client and the server it talks to. */
export interface McpPair {
  client: Client;
  lucid: LucidMcpServer;
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** Builds the server over `vault`, links a real SDK client to it in memory, and connects both. */
export async function connectInMemory(vault: Vault): Promise<McpPair> {
  const lucid = buildServer(vault, { owner: { kind: 'library' } });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'lucid-test', version: '0.0.0' });
  await Promise.all([lucid.server.connect(serverTransport), client.connect(clientTransport)]);
  return {
    client,
    lucid,
    call: async (name, args) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    // Closing makes the server end its open sessions as abandoned, a write: wait for it, so the
    // vault is not removed under it.
    close: async () => {
      await client.close();
      await lucid.abandonOpenSessions();
    },
  };
}

/** The text of a tool result's first content block. */
export function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first && first.type === 'text' ? first.text : '';
}

/** The structured content of a result that must have succeeded. */
export function ok<T = Record<string, unknown>>(result: CallToolResult): T {
  if (result.isError) throw new Error(`tool failed: ${textOf(result)}`);
  return result.structuredContent as T;
}

/** A commit's trailers as git itself parses them. */
export function trailersOf(tv: TempVault, rev = 'HEAD'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of tv.git(['log', '-1', '--format=%(trailers:only,unfold)', rev]).split('\n')) {
    const at = line.indexOf(': ');
    if (at > 0) out[line.slice(0, at)] = line.slice(at + 2);
  }
  return out;
}

/** The files a commit changed, sorted. */
export function filesOf(tv: TempVault, rev = 'HEAD'): string[] {
  return tv.git(['show', '--name-only', '--format=', rev, '--']).split('\n').filter(Boolean).sort();
}

/** Changelog lines (`- ` lines ending in an edit id) in the changelog text. */
export function changelogLines(tv: TempVault): string[] {
  if (!tv.exists('changelog.md')) return [];
  return tv
    .read('changelog.md')
    .split('\n')
    .filter((l) => /^- .* \^e[a-z2-7]{12}$/.test(l));
}

/** One property of a note's front matter, read with a regex (not with the library under test). */
export function fieldOf(text: string, key: string): string | undefined {
  const front = /^---\n([\s\S]*?)\n---\n/.exec(text)?.[1] ?? '';
  return new RegExp(`^${key}: (.*)$`, 'm').exec(front)?.[1]?.replace(/^"(.*)"$/, '$1');
}

/** What a spec opened: closed and removed after each of its tests. */
export interface McpCleanup {
  vaults: TempVault[];
  opened: Vault[];
  pairs: McpPair[];
}

/** Lists that the spec calling this (at its top level) fills, emptied after each test: pairs closed, vaults closed, temp folders removed. */
export function cleanedAfterEach(): McpCleanup {
  const lists: McpCleanup = { vaults: [], opened: [], pairs: [] };
  afterEach(async () => {
    for (const pair of lists.pairs.splice(0)) await pair.close().catch(() => undefined);
    for (const vault of lists.opened.splice(0)) vault.close();
    for (const tv of lists.vaults.splice(0)) tv.cleanup();
  });
  return lists;
}

/** A temp vault with `files`, opened, with an in-memory MCP pair on it, all in `lists` for cleaning up. */
export async function openWithMcp(lists: McpCleanup, files: Record<string, string>): Promise<{ tv: TempVault; vault: Vault; mcp: McpPair }> {
  const tv = makeTempVault(files);
  lists.vaults.push(tv);
  const vault = await tv.open();
  lists.opened.push(vault);
  const mcp = await connectInMemory(vault);
  lists.pairs.push(mcp);
  return { tv, vault, mcp };
}

/** What {@link stdioServersEachTest} gives a spec file. */
export interface StdioServersPerTest {
  /** A temp vault with `files` (the MCP specs' vault by default), removed after the test. */
  tempVault(files?: Record<string, string>): TempVault;
  /** `lucid mcp` on `tv` with a real SDK client over stdio, closed after the test. */
  spawnServer(tv: TempVault): Promise<StdioServer>;
}

/** For a spec (called at its top level) whose tests start `lucid mcp` processes: each test's servers closed, then its vaults removed. */
export function stdioServersEachTest(): StdioServersPerTest {
  const vaults: TempVault[] = [];
  const servers: StdioServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.client.close().catch(() => undefined)));
    for (const tv of vaults.splice(0)) tv.cleanup();
  });
  return {
    tempVault(files = MCP_VAULT_FILES) {
      const tv = makeTempVault(files);
      vaults.push(tv);
      return tv;
    },
    async spawnServer(tv) {
      const server = await spawnStdioServer(tv);
      servers.push(server);
      return server;
    },
  };
}

/** `lucid mcp` started as an MCP client starts it, with a real SDK client connected over stdio. */
export interface StdioServer {
  client: Client;
  transport: StdioClientTransport;
  stderr: () => string;
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult & { structuredContent?: Record<string, unknown> }>;
  /** Resolves when the server's process has ended (its 'close' event), with how it ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts `./bin/lucid mcp --vault <root>` and connects a real SDK client to it over stdio; `env`
 * adds to the vault's environment (e.g. LUCID_MACHINE), `args` to the command line.
 */
export async function spawnStdioServer(
  tv: Pick<TempVault, 'root' | 'env'>,
  more: { env?: Record<string, string>; args?: string[]; command?: { command: string; args: string[] } } = {},
): Promise<StdioServer> {
  const transport = new StdioClientTransport({
    command: more.command?.command ?? BIN,
    args: more.command?.args ?? ['mcp', '--vault', tv.root, ...(more.args ?? [])],
    env: { ...(tv.env as Record<string, string>), LUCID_USER: 'Test Person', ...more.env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: 'lucid-stdio-test', version: '0.0.0' });
  await client.connect(transport);
  // The SDK keeps the child process to itself; its 'close' event is the one sure sign the server is gone.
  const child = (transport as unknown as { _process?: ChildProcess })._process;
  if (!child) throw new Error('the MCP server process did not start');
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once('close', (code, signal) => resolve({ code, signal }));
  });
  return {
    client,
    transport,
    exited,
    stderr: () => stderr,
    call: async (name, args) =>
      (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as CallToolResult & { structuredContent?: Record<string, unknown> },
  };
}
