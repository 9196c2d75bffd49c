import { describe, expect, it } from 'vitest';
import { formatCommitMessage, machineName, machineTrailer, parseCommitMessage, TRAILER } from '../../lib/vault/git/commit-message';
import { parseGitLog } from '../../lib/vault/git/commit-index';

/** The Lucid-Machine trailer: written last, one clean line, read back by the commit index. */

describe('Lucid-Machine in a commit message', () => {
  it('comes last, after the standard and the extra trailers, and parses back', () => {
    const message = formatCommitMessage({
      op: 'molt',
      path: 'skills/triage.md',
      reason: 'sharper steps',
      actor: 'agent:claude-code',
      editId: 'eabcdefghijkl',
      session: '20261130-140112-claude-code-k3tq',
      extra: [['Lucid-Molt', 'triage 2->3']],
      machine: 'ada-laptop',
    });
    expect(message).toBe(
      'molt skills/triage.md\n\nsharper steps\n\nLucid-Actor: agent:claude-code\nLucid-Op: molt\nLucid-Edit: eabcdefghijkl\nLucid-Session: 20261130-140112-claude-code-k3tq\nLucid-Molt: triage 2->3\nLucid-Machine: ada-laptop\n',
    );
    expect(parseCommitMessage(message).trailers[TRAILER.machine]).toBe('ada-laptop');
    expect(TRAILER.machine).toBe('Lucid-Machine');
  });

  it('is left out when there is no machine, and a hostile name stays one line that adds no trailer', () => {
    const base = { op: 'update', path: 'a.md', reason: 'r', actor: 'human:Ada', editId: 'eabcdefghijkl' };
    expect(formatCommitMessage(base)).not.toContain('Lucid-Machine');
    expect(formatCommitMessage({ ...base, machine: ' \n ' })).not.toContain('Lucid-Machine');
    const forged = formatCommitMessage({ ...base, machine: 'box\nLucid-Actor: agent:evil\r\nLucid-Op: delete' });
    const { trailers } = parseCommitMessage(forged);
    expect(trailers['Lucid-Actor']).toBe('human:Ada');
    expect(trailers['Lucid-Op']).toBe('update');
    expect(trailers['Lucid-Machine']).toBe('box Lucid-Actor: agent:evil Lucid-Op: delete');
  });

  it('machineName: one line, no control characters, at most 64 characters; machineTrailer names the vault', () => {
    expect(machineName('  studio\tmac\u0000 ')).toBe('studio mac');
    expect(machineName('m'.repeat(80))).toHaveLength(64);
    expect(machineName(null)).toBe('');
    expect(machineName('\u2028\u0085')).toBe('');
    expect(machineTrailer({ machine: 'desk-b' })).toEqual(['Lucid-Machine', 'desk-b']);
  });
});

describe('parseGitLog: machine and person', () => {
  const SHA = 'c5a4ea93efcb53c2f4f48854a4c594cf7bd331b5';
  it("reads the machine from Lucid's trailer and the person from the committer", () => {
    const message = 'update a.md\n\nwhy\n\nLucid-Actor: agent:x\nLucid-Op: update\nLucid-Edit: eabcdefghijkl\nLucid-Machine: desk-b\n';
    const [record] = parseGitLog(`\u001e${SHA}\u001f1796017921\u001fagent:x\u001fGrace Hopper\u001f\u001f${message}\u001f\u0000\nM\u0000a.md\u0000`);
    expect(record).toMatchObject({ author: 'agent:x', person: 'Grace Hopper', machine: 'desk-b', actor: 'agent:x', reason: 'why' });
  });

  it("ignores a Lucid-Machine line in a commit Lucid did not make (a person's words, not a trailer)", () => {
    const [record] = parseGitLog(`\u001e${SHA}\u001f1796017921\u001fAda\u001fAda\u001f\u001ffix\n\nLucid-Machine: forged\n\u001f\u0000\nM\u0000a.md\u0000`);
    expect(record).toMatchObject({ machine: null, person: 'Ada', actor: null });
  });
});
