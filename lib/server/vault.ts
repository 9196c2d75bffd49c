import 'server-only';
import os from 'node:os';
import { openVault, type Vault } from '@/lib/vault';
import { serverConfig } from './config';

const globalForVault = globalThis as unknown as { lucidVault?: Promise<Vault> };

/** The dashboard's one Vault (one per server process; kept across dev reloads). */
export function getVault(): Promise<Vault> {
  if (!globalForVault.lucidVault) {
    const { vaultRoot } = serverConfig();
    globalForVault.lucidVault = openVault({
      root: vaultRoot,
      env: process.env,
      fallbackUser: process.env.LUCID_USER ?? safeUserName(),
      machine: process.env.LUCID_MACHINE || undefined,
      // The server lives long: a file watcher keeps the listing, so a search checks only what changed.
      watch: true,
      onWarning: (message) => console.warn(`lucid: ${message}`),
    }).catch((error) => {
      globalForVault.lucidVault = undefined;
      throw error;
    });
  }
  return globalForVault.lucidVault;
}

function safeUserName(): string {
  try {
    return os.userInfo().username;
  } catch {
    return 'unknown';
  }
}
