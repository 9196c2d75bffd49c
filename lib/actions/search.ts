'use server';

import { z } from 'zod';
import { gatedAction } from '@/lib/server/action';
import { getVault } from '@/lib/server/vault';

const searchNotesSchema = z.object({
  query: z.string().max(500),
  type: z.string().max(40).optional(),
  folder: z.string().max(500).optional(),
  limit: z.number().int().min(1).max(100).optional(),
});

/** Search as you type: ranked notes with snippets (matches between « and »). */
export const searchNotesAction = gatedAction(searchNotesSchema, async (input) => {
  const vault = await getVault();
  // Prefix matching is for a person typing here; agents and the CLI search whole words.
  const hits = await vault.search(input.query, { type: input.type || undefined, folder: input.folder || undefined, limit: input.limit ?? 30, prefix: true });
  return hits.map((h) => ({ path: h.path, title: h.title, type: h.type, snippet: h.snippet }));
});
