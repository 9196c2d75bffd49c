import { hostname } from 'node:os';
import { oneLine } from '../git/changelog';
import type { Vault } from '../vault';

/**
 * The `Lucid-Machine` trailer of the sync's merge commit: where the sync ran, the vault's machine
 * name when it has one, else this host's name.
 */
export function syncMachineTrailer(vault: Vault): [string, string] {
  const named = (vault as Vault & { machine?: string }).machine;
  return ['Lucid-Machine', oneLine(named ?? hostname(), 100) || 'unknown'];
}
