import Link from 'next/link';

export default function SkillNotFound() {
  return (
    <div className="max-w-xl">
      <h1 className="text-2xl font-semibold">No such skill</h1>
      <p className="mt-2 text-sm text-stone-600">
        There is no skill of this name in the skills folder or its archive. It may have been renamed; its history is still in git.
      </p>
      <p className="mt-4 text-sm">
        <Link href="/skills" className="text-blue-800 underline">
          All skills
        </Link>
      </p>
    </div>
  );
}
