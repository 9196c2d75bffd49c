import { describe, expect, it, vi } from 'vitest';
import type { EvalProgress, EvalRunOptions, Vault } from '../../lib/vault';

// The dashboard's evaluation jobs: one per vault at a time, progress as the run reports it, and how
// it ended; the run itself is a stand-in the test finishes when it wants.

vi.mock('server-only', () => ({}));
const calls: { options: EvalRunOptions; finish: (value: unknown) => void; fail: (error: unknown) => void }[] = [];
vi.mock('@/lib/vault', async () => {
  const errors = await import('../../lib/vault/errors');
  return {
    isVaultError: errors.isVaultError,
    runEvaluation: (_vault: Vault, options: EvalRunOptions) =>
      new Promise((finish, fail) => {
        calls.push({ options, finish, fail });
      }),
  };
});

const { evalJobStatus, startEvalJob } = await import('../../lib/server/eval-jobs');
const { VaultError } = await import('../../lib/vault/errors');

const vaultAt = (root: string) => ({ root }) as Vault;
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('evaluation jobs', () => {
  it('runs one job per vault: a second start returns the running one, with its progress', async () => {
    const vault = vaultAt('/vaults/one');
    expect(evalJobStatus(vault)).toBeNull();
    const first = startEvalJob(vault, 'human:Ada');
    expect(first).toMatchObject({ started: true, job: { state: 'running', progress: null } });
    expect(calls).toHaveLength(1);
    expect(calls[0].options.actor).toBe('human:Ada');

    const progress: EvalProgress = { set: 'demo', strategy: 'keyword', done: 3, total: 12 };
    calls[0].options.onProgress?.(progress);
    const second = startEvalJob(vault, 'human:Ada');
    expect(second).toMatchObject({ started: false, job: { id: first.job.id, progress } });
    expect(calls).toHaveLength(1);
    // Another vault has its own job.
    expect(startEvalJob(vaultAt('/vaults/two'), 'human:Ada').started).toBe(true);
    expect(calls).toHaveLength(2);

    calls[0].finish({
      commit: 'a'.repeat(40),
      runs: [{ set: 'demo', notePath: 'evals/runs/x-demo.md', questions: 12, resultsPath: '', summary: {}, results: [] }],
    });
    await settle();
    expect(evalJobStatus(vault)).toMatchObject({
      id: first.job.id,
      state: 'done',
      commit: 'a'.repeat(40),
      runs: [{ set: 'demo', notePath: 'evals/runs/x-demo.md', questions: 12 }],
      error: null,
    });
    expect(evalJobStatus(vault)?.finishedAt).not.toBeNull();
    // Once it ended, a start starts a new one.
    const third = startEvalJob(vault, 'human:Ada');
    expect(third.started).toBe(true);
    expect(third.job.id).not.toBe(first.job.id);
    calls[2].fail(new VaultError('not_found', 'No question set: run lucid eval generate.'));
    await settle();
    expect(evalJobStatus(vault)).toMatchObject({ state: 'failed', error: { code: 'not_found', message: 'No question set: run lucid eval generate.' } });
  });

  it('reports a bug as a failure in words, without taking the server down', async () => {
    const vault = vaultAt('/vaults/three');
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    startEvalJob(vault, 'human:Ada');
    calls.at(-1)?.fail(new TypeError('boom'));
    await settle();
    expect(evalJobStatus(vault)).toMatchObject({ state: 'failed', error: { code: 'internal' } });
    expect(evalJobStatus(vault)?.error?.message).toContain('boom');
    expect(error).toHaveBeenCalled();
    error.mockRestore();
  });
});
