import { queryOptions } from '@tanstack/react-query';
import { searchNotesAction } from '@/lib/actions/search';

/** The search view's query: one action call per (query, filters). */
export function searchQueryOptions(query: string, type: string, folder: string) {
  return queryOptions({
    queryKey: ['search', query, type, folder] as const,
    queryFn: async () => {
      const result = await searchNotesAction({ query, type: type || undefined, folder: folder || undefined });
      if (!result.ok) throw new Error(result.message);
      return result.data;
    },
    enabled: query.trim().length > 0,
    placeholderData: (previous) => previous,
  });
}
