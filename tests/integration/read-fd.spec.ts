import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nodeFs } from '../../lib/vault/fs';

// readFd sizes its first read from the stat it is given and confirms the end with a small chunk:
// every byte must still come back, whatever the size, and whatever the hint (a file that grew or
// shrank after its stat).

const dir = mkdtempSync(path.join(os.tmpdir(), 'lucid-readfd-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fileOf(size: number): { file: string; bytes: Buffer } {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i += 1) bytes[i] = (i * 31 + 7) % 251;
  const file = path.join(dir, `f-${size}`);
  writeFileSync(file, bytes);
  return { file, bytes };
}

async function read(file: string, hint?: number): Promise<Buffer> {
  const fd = await nodeFs.openRead(file);
  try {
    return await nodeFs.readFd(fd, hint);
  } finally {
    await nodeFs.close(fd);
  }
}

describe('nodeFs.readFd', () => {
  const sizes = [0, 1, 3999, 4000, 4001, 65_535, 65_536, 65_537, 1024 * 1024 + 3, 3 * 1024 * 1024 + 17];
  it.each(sizes)('returns every byte of a %i-byte file, with and without its size', async (size) => {
    const { file, bytes } = fileOf(size);
    expect((await read(file)).equals(bytes)).toBe(true);
    expect((await read(file, size)).equals(bytes)).toBe(true);
  });

  it.each(sizes)('returns every byte of a %i-byte file whose size changed after its stat', async (size) => {
    const { file, bytes } = fileOf(size);
    expect((await read(file, Math.floor(size / 3))).equals(bytes)).toBe(true);
    expect((await read(file, size * 2 + 10)).equals(bytes)).toBe(true);
  });
});
