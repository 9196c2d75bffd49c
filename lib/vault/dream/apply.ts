import { VaultError } from '../errors';
import type { Vault } from '../vault';
import type { ApplyDreamOptions, DreamFindings, DreamRun } from './types';

/**
 * Writes the findings as the branch `dream/<run id>`, one commit per change, without switching
 * HEAD or touching the working tree or the real index.
 */
export async function applyDreamRun(vault: Vault, findings: DreamFindings, options: ApplyDreamOptions = {}): Promise<DreamRun> {
  void vault;
  void findings;
  void options;
  throw new VaultError('invalid_input', 'applyDreamRun is not written yet.');
}
