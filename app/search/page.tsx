import { Suspense } from 'react';
import { PageHeader } from '@/components/page-header';
import { SearchView } from '@/components/search-view';
import { fetchSearchFolders } from '@/lib/server/data';

export default async function SearchPage() {
  const folders = await fetchSearchFolders();
  return (
    <div>
      <PageHeader title="Search" description="Every note in the vault, ranked by how well it answers your words (BM25 with stemming)." />
      <Suspense>
        <SearchView folders={folders} />
      </Suspense>
    </div>
  );
}
