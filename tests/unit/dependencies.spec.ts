import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** The lockfile's version of a package. */
function locked(name: string): string {
  const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, { version?: string }> };
  const version = lock.packages[`node_modules/${name}`]?.version;
  if (!version) throw new Error(`${name} is not in package-lock.json`);
  return version;
}

function atLeast(version: string, minimum: string): boolean {
  const a = version.split('.').map(Number);
  const b = minimum.split('.').map(Number);
  for (let i = 0; i < 3; i += 1) if (a[i] !== b[i]) return a[i] > b[i];
  return true;
}

describe('dependencies with known advisories are at patched versions', () => {
  it.each([
    ['next', '16.0.7'], // CVE-2025-29927 (proxy bypass), CVE-2025-55182 and the 2026 server action advisories
    ['react', '19.2.1'], // CVE-2025-55182 (React Server Components)
    ['react-dom', '19.2.1'],
    ['js-yaml', '3.14.2'], // GHSA-mh29-5h37-fv8m (prototype pollution through merge keys), pulled in by gray-matter
  ])('%s is at least %s', (name, minimum) => {
    expect(atLeast(locked(name), minimum), `${name} ${locked(name)}`).toBe(true);
  });
});

describe('package-lock.json says what npm install would write', () => {
  const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as Record<string, unknown> & { scripts?: Record<string, string> };
  const root = (JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, Record<string, unknown>> }).packages[''];

  it('records an install script exactly when package.json has one (npm install adds the flag otherwise)', () => {
    const hasInstallScript = ['preinstall', 'install', 'postinstall'].some((name) => pkg.scripts?.[name] !== undefined);
    expect(root.hasInstallScript === true).toBe(hasInstallScript);
  });

  it.each(['name', 'version', 'dependencies', 'devDependencies', 'engines', 'bin', 'license'])('holds package.json %s as it is', (field) => {
    expect(root[field]).toEqual(pkg[field]);
  });
});
