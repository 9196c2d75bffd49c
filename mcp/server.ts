import os from 'node:os';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { abandonSessions, openVault, orphanedSessions, type SessionOwner, startSyncSchedule, type SyncSchedule, upgradeInstall } from '../lib/vault/index';
import { buildServer } from './tools';

/** How to run the stdio server. */
export interface StdioServerOptions {
  vaultRoot: string;
  env: Record<string, string | undefined>;
  fallbackUser?: string;
  version?: string;
  /** The search index's worker threads, as the CLI finds them (cli/index-workers.ts). */
  indexWorkers?: { script: string; execArgv?: string[] } | null;
  /** `--sync-every`: sync the vault with its remote on this schedule while serving (as given, and in ms). */
  syncEvery?: { text: string; ms: number };
}

// stdout is the protocol channel: everything else goes to stderr.
const log = (message: string) => process.stderr.write(`lucid mcp: ${message}\n`);

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Serves the vault over stdio until the client goes away (stdin ends or the transport closes) or
 * the process is asked to stop (SIGTERM, SIGINT, SIGHUP); then ends this server's open sessions as
 * abandoned and resolves. Sessions left open by an MCP server on this machine that no longer runs
 * are ended as abandoned at start.
 */
export async function runStdioServer(options: StdioServerOptions): Promise<void> {
  // A long-lived server: a file watcher keeps the listing, so a search checks only what changed.
  const workers = options.indexWorkers ? { indexWorkers: options.indexWorkers } : {};
  const vault = await openVault({
    root: options.vaultRoot,
    env: options.env,
    fallbackUser: options.fallbackUser,
    machine: options.env.LUCID_MACHINE || undefined,
    watch: true,
    onWarning: log,
    ...workers,
  });
  try {
    const upgraded = await upgradeInstall(vault);
    if (upgraded.length > 0) log(`upgraded the install: committed ${upgraded.join(', ')}`);
  } catch (error) {
    log(`could not upgrade the install (${(error as Error).message}); serving the vault as it is`);
  }
  const owner: SessionOwner = { kind: 'mcp', pid: process.pid, host: os.hostname() };
  const orphans = orphanedSessions(vault, owner, isAlive);
  if (orphans.length > 0) {
    const ended = await abandonSessions(
      vault,
      orphans.map((s) => s.id),
      'The MCP server that held it stopped without ending it.',
    );
    log(`ended ${ended.length} session(s) left open by a stopped server: ${ended.join(', ')}`);
  }

  const lucid = buildServer(vault, { owner, log, version: options.version });
  const transport = new StdioServerTransport();
  let resolveDone!: () => void;
  const done = new Promise<void>((resolve) => {
    resolveDone = resolve;
  });
  let stopping = false;
  let schedule: SyncSchedule | null = null;
  const stop = (why: string) => {
    if (stopping) return;
    stopping = true;
    log(`${why}; stopping`);
    void lucid.abandonOpenSessions().finally(async () => {
      await schedule?.stop();
      await lucid.server.close().catch(() => undefined);
      await vault.close();
      resolveDone();
    });
  };
  process.stdin.on('end', () => stop('the client closed stdin'));
  process.stdin.on('close', () => stop('stdin closed'));
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => stop(`received ${signal}`));
  const onclose = lucid.server.server.onclose;
  lucid.server.server.onclose = () => {
    onclose?.();
    stop('the transport closed');
  };

  await lucid.server.connect(transport);
  const watching = vault.watchState().mode === 'watching' ? 'watching its files for changes' : "checking every file's stamp before a search";
  log(`serving ${vault.root} on stdio (pid ${process.pid}; ${watching})`);
  if (options.syncEvery && !stopping) {
    schedule = startSyncSchedule(vault, { everyMs: options.syncEvery.ms, log });
    log(`syncing with the vault's remote every ${options.syncEvery.text}`);
  }
  await done;
  // Whatever still holds the event loop (a stray timer, a half-closed pipe) must not keep a stopped server alive.
  setTimeout(() => process.exit(process.exitCode ?? 0), 500).unref();
}
