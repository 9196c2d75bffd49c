import 'server-only';
import { gateConfigFrom, type GateConfig } from './gate-rules';

/** The dashboard's configuration, read once from the environment `lucid serve` sets. */
export interface ServerConfig {
  vaultRoot: string;
  gate: GateConfig;
}

let cached: ServerConfig | null = null;

/** The configuration; throws with what to do when the dashboard was not started by `lucid serve`. */
export function serverConfig(): ServerConfig {
  if (cached) return cached;
  const gate = gateConfigFrom(process.env);
  const vaultRoot = process.env.LUCID_VAULT;
  if (!gate || !vaultRoot) throw new Error('The dashboard was started without LUCID_VAULT, LUCID_PORT and LUCID_TOKEN. Start it with `lucid serve`.');
  cached = { vaultRoot, gate };
  return cached;
}
