import { queryOptions } from '@tanstack/react-query';
import { skillDiffAction } from '@/lib/actions/skills';

/** Every skill query's key starts here. */
const skillKeys = {
  all: ['skills'] as const,
  diff: (name: string, from: string, to: string) => ['skills', 'diff', name, from, to] as const,
};

/** The diff between two versions of a skill; two commits' texts never change, so it is fetched once. */
export function skillDiffOptions(name: string, from: string, to: string) {
  return queryOptions({
    queryKey: skillKeys.diff(name, from, to),
    queryFn: async () => {
      const result = await skillDiffAction({ name, from, to });
      if (!result.ok) throw new Error(result.message);
      return result.data;
    },
    staleTime: Number.POSITIVE_INFINITY,
  });
}
