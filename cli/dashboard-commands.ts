import { existsSync, readdirSync } from 'node:fs';
import nodePath from 'node:path';
import { buildIfNeeded, PACKAGE_ROOT, serve } from './serve';
import { fallbackUser, UsageError, vaultDir, type Io } from './shared';
import { SYNC_EVERY_HELP, syncEveryOf, syncEveryOption } from './sync-every';

type Values = Record<string, string | boolean | undefined>;

function portOf(values: Values): number | undefined {
  if (values.port === undefined) return undefined;
  const port = Number(values.port);
  if (!Number.isInteger(port)) throw new UsageError('--port must be a whole number.');
  return port;
}

/** The demo vault `npm start` serves, inside the package (git-ignored). */
const DEMO_DIR = nodePath.join(PACKAGE_ROOT, '.lucid-demo');

/** `serve`, `start` and `build`: the dashboard's commands. */
export const dashboardCommands = {
  serve: {
    summary: 'Serve the dashboard for a vault on 127.0.0.1 (prints the URL to open)',
    usage:
      'lucid serve [--vault DIR] [--port N] [--no-build] [--sync-every I]\n\n  --port N        serve exactly on N (refused when taken); default: the first free port from 3000\n  --no-build      never rebuild the dashboard (fails if it was never built)\n' +
      `${SYNC_EVERY_HELP}\n\n  The URL carries a token for this launch; the dashboard answers only to it, on 127.0.0.1 and localhost.`,
    options: {
      vault: { type: 'string' as const, short: 'v' },
      port: { type: 'string' as const, short: 'p' },
      'no-build': { type: 'boolean' as const },
      ...syncEveryOption,
    },
    async run(io: Io, values: Values) {
      const syncEvery = syncEveryOf(values);
      return serve(io, { vaultRoot: vaultDir(io, values.vault as string | undefined), port: portOf(values), build: !values['no-build'], syncEvery });
    },
  },
  start: {
    summary: 'Serve the dashboard on the demo vault (generated into .lucid-demo/ on first run)',
    usage: 'lucid start [--port N]\n\n  What `npm start` runs. Delete .lucid-demo/ to get a fresh demo vault dated today.',
    options: { port: { type: 'string' as const, short: 'p' } },
    async run(io: Io, values: Values) {
      if (!existsSync(DEMO_DIR) || readdirSync(DEMO_DIR).length === 0) {
        io.err(`Generating the demo vault in ${DEMO_DIR} (first run)…`);
        const { defaultDemoAnchor, generateDemoVault } = await import('../lib/demo/demo');
        await generateDemoVault({ dir: DEMO_DIR, env: io.env, anchor: defaultDemoAnchor(new Date()), fallbackUser: fallbackUser(io.env) });
      }
      return serve(io, { vaultRoot: DEMO_DIR, port: portOf(values) });
    },
  },
  build: {
    summary: 'Build the dashboard now (serve does it when its sources changed)',
    usage: 'lucid build [--force]',
    options: { force: { type: 'boolean' as const } },
    async run(io: Io, values: Values) {
      const built = buildIfNeeded(io, Boolean(values.force));
      if (!built) io.out('The dashboard is up to date.');
      return 0;
    },
  },
};
