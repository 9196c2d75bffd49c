import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import { openVault, startSyncSchedule, upgradeInstall, type Vault, VaultError } from '../lib/vault/index';
import { fallbackUser, machineOption, UsageError, type Io } from './shared';
import type { SyncEvery } from './sync-every';

/** The package's own folder (where app/, .next/ and node_modules/ are). */
export const PACKAGE_ROOT = nodePath.resolve(nodePath.dirname(fileURLToPath(import.meta.url)), '..');
const NEXT_BIN = nodePath.join(PACKAGE_ROOT, 'node_modules', 'next', 'dist', 'bin', 'next');
const BUILD_STAMP = nodePath.join(PACKAGE_ROOT, '.next', 'lucid-build-stamp');
const SOURCES = [
  'app',
  'components',
  'lib',
  'public',
  'proxy.ts',
  'next.config.ts',
  'postcss.config.mjs',
  'tsconfig.json',
  'package-lock.json',
  'package.json',
];

/** A hash of everything the dashboard is built from, to rebuild only when it changed. */
function sourceStamp(): string {
  const hash = createHash('sha256');
  const add = (path: string) => {
    if (!existsSync(path)) return;
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path).sort()) add(nodePath.join(path, name));
    } else {
      hash.update(nodePath.relative(PACKAGE_ROOT, path));
      hash.update(readFileSync(path));
    }
  };
  for (const source of SOURCES) add(nodePath.join(PACKAGE_ROOT, source));
  return hash.digest('hex');
}

/** Builds the dashboard when its sources changed since the last build; returns whether it built. */
export function buildIfNeeded(io: Io, force = false): boolean {
  const stamp = sourceStamp();
  const built = existsSync(BUILD_STAMP) ? readFileSync(BUILD_STAMP, 'utf8').trim() : null;
  if (!force && built === stamp && existsSync(nodePath.join(PACKAGE_ROOT, '.next', 'BUILD_ID'))) return false;
  io.err(built ? 'The dashboard changed since the last build; building it (about a minute)…' : 'Building the dashboard (first run, about a minute)…');
  const result = spawnSync(process.execPath, [NEXT_BIN, 'build'], {
    cwd: PACKAGE_ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
  });
  if (result.status !== 0) throw new VaultError('io_error', 'Building the dashboard failed; the messages above say why.');
  writeFileSync(BUILD_STAMP, `${stamp}\n`);
  return true;
}

/** Resolves when `port` on 127.0.0.1 can be listened on. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** The port to serve on: `--port` exactly (refused when taken), else the first free from 3000. */
async function choosePort(requested: number | undefined): Promise<number> {
  if (requested !== undefined) {
    if (!Number.isInteger(requested) || requested < 1 || requested > 65535) throw new UsageError(`--port must be a number from 1 to 65535.`);
    if (!(await portFree(requested)))
      throw new VaultError(
        'invalid_input',
        `Port ${requested} is in use. Choose another with --port, or leave --port out to take the first free one from 3000.`,
      );
    return requested;
  }
  for (let port = 3000; port < 3100; port += 1) if (await portFree(port)) return port;
  throw new VaultError('invalid_input', 'No free port between 3000 and 3099; name one with --port.');
}

async function waitUntilUp(port: number, child: ReturnType<typeof spawn>): Promise<void> {
  for (let i = 0; i < 600; i += 1) {
    if (child.exitCode !== null) throw new VaultError('io_error', 'The dashboard server stopped while starting; the messages above say why.');
    const up = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ port, host: '127.0.0.1' }, () => {
        socket.end();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (up) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new VaultError('io_error', 'The dashboard server did not start within a minute.');
}

/**
 * Serves the dashboard on `vaultRoot`: builds when needed, runs `next start` on 127.0.0.1 as a
 * child with signals forwarded, prints the URL with this launch's token, and resolves with the
 * child's exit code. With `syncEvery`, this process also syncs the vault with its remote on that
 * schedule until the child ends.
 */
export async function serve(io: Io, options: { vaultRoot: string; port?: number; build?: boolean; syncEvery?: SyncEvery }): Promise<number> {
  const vault = await openVault({ root: options.vaultRoot, env: io.env, fallbackUser: fallbackUser(io.env), ...machineOption(io.env) });
  try {
    const upgraded = await upgradeInstall(vault);
    if (upgraded.length > 0) io.out(`Upgraded the install: committed ${upgraded.join(', ')}.`);
  } catch (error) {
    io.err(`lucid: could not upgrade the install (${(error as Error).message}); serving the vault as it is.`);
  }
  // Kept open only for the schedule's syncs; the dashboard opens its own.
  if (!options.syncEvery) vault.close();
  try {
    return await serveOpened(io, vault, options);
  } finally {
    if (options.syncEvery) await vault.close();
  }
}

async function serveOpened(io: Io, vault: Vault, options: { port?: number; build?: boolean; syncEvery?: SyncEvery }): Promise<number> {
  if (options.build !== false) buildIfNeeded(io);
  else if (!existsSync(nodePath.join(PACKAGE_ROOT, '.next', 'BUILD_ID')))
    throw new VaultError('not_found', 'The dashboard is not built; run `lucid serve` without --no-build once.');
  const port = await choosePort(options.port);
  const token = io.env.LUCID_TOKEN && io.env.LUCID_TOKEN.length >= 32 ? io.env.LUCID_TOKEN : randomBytes(24).toString('base64url');
  const child = spawn(process.execPath, [NEXT_BIN, 'start', '-p', String(port), '-H', '127.0.0.1'], {
    cwd: PACKAGE_ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      ...io.env,
      LUCID_VAULT: vault.root,
      LUCID_PORT: String(port),
      LUCID_TOKEN: token,
      LUCID_SYNC_EVERY: options.syncEvery?.text ?? '',
      NEXT_TELEMETRY_DISABLED: '1',
      NODE_ENV: 'production',
    },
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) {
      if (line.trim() && !/Local:|Network:|Next\.js|Starting|Ready in|^\s*-\s*$|^\s*✓/.test(line)) io.out(line);
    }
  });
  const forward = (signal: NodeJS.Signals) => () => {
    if (child.exitCode === null) child.kill(signal);
  };
  const onInt = forward('SIGINT');
  const onTerm = forward('SIGTERM');
  // SIGHUP is left alone: under nohup it is ignored, and the server must keep running.
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  const exited = new Promise<number>((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 0 : 1))));
  await waitUntilUp(port, child);
  io.out(`Lucid dashboard for ${vault.root}\nOpen: http://127.0.0.1:${port}/?token=${token}\n(Ctrl-C stops it.)`);
  const schedule = options.syncEvery ? startSyncSchedule(vault, { everyMs: options.syncEvery.ms, log: (message) => io.err(`lucid serve: ${message}`) }) : null;
  if (options.syncEvery) io.out(`Syncing with the vault's remote every ${options.syncEvery.text}.`);
  const code = await exited;
  await schedule?.stop();
  process.off('SIGINT', onInt);
  process.off('SIGTERM', onTerm);
  return code;
}
