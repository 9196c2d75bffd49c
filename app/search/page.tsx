import { Suspense } from 'react';
import { PageHeader } from '@/components/page-header';
import { SearchView } from '@/components/search-view';
import { getVault } from '@/lib/server/vault';

export default async function SearchPage() {
  const vault = await getVault();
  const folders = new Set<string>();
  for (const file of await vault.listFiles()) {
    if (!file.path.toLowerCase().endsWith('.md')) continue;
    const parts = file.path.split('/').slice(0, -1);
    for (let i = 1; i <= Math.min(parts.length, 2); i += 1) folders.add(parts.slice(0, i).join('/'));
  }
  return (
    <div>
      <PageHeader title="Search" description="Every note in the vault, ranked by how well it answers your words (BM25 with stemming)." />
      <Suspense>
        <SearchView folders={[...folders].sort()} />
      </Suspense>
    </div>
  );
}
