import type { NextConfig } from 'next';

const nextConfig: NextConfig = {
  // Native and git-spawning packages stay in node_modules instead of being bundled.
  serverExternalPackages: ['better-sqlite3', 'simple-git', 'proper-lockfile', '@parcel/watcher'],
  poweredByHeader: false,
  reactStrictMode: true,
  experimental: {
    serverActions: { bodySizeLimit: '1mb' },
  },
};

export default nextConfig;
