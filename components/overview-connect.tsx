/** The MCP clients `lucid mcp --print-config` writes a configuration for, and where each one reads it. */
const CLIENTS: { client: string; where: string; redirect: string | null }[] = [
  { client: 'claude-code', where: 'in your code repository', redirect: '.mcp.json' },
  { client: 'claude-desktop', where: 'merge it into claude_desktop_config.json', redirect: null },
  { client: 'cursor', where: 'save it as .cursor/mcp.json', redirect: null },
  { client: 'vscode', where: 'save it as .vscode/mcp.json', redirect: null },
];

/** What a vault no agent has written to yet should do next: connect an agent through `lucid mcp`. */
export function OverviewConnect({ vaultRoot }: { vaultRoot: string }) {
  const vault = /^[\w@%+=:,./-]+$/.test(vaultRoot) ? vaultRoot : `'${vaultRoot.replace(/'/g, `'\\''`)}'`;
  return (
    <section
      aria-labelledby="connect-title"
      className="mb-6 rounded-lg border border-blue-200 bg-blue-50 p-5 text-sm text-stone-800"
      data-testid="connect-agent"
    >
      <h2 id="connect-title" className="text-lg font-semibold">
        No agent has used this vault yet
      </h2>
      <p className="mt-1 max-w-2xl">
        Connect an agent: Lucid serves the vault to it over MCP, and everything it searches, writes and proposes shows up here. Print the configuration for your
        client and put it where the client looks for it; the command says where on its error output.
      </p>
      <ul className="mt-3 space-y-2">
        {CLIENTS.map(({ client, where, redirect }) => (
          <li key={client}>
            <code className="block overflow-x-auto rounded bg-white px-2 py-1.5 font-mono text-xs">
              lucid mcp --print-config {client} --vault {vault}
              {redirect ? ` > ${redirect}` : ''}
            </code>
            <span className="text-xs text-stone-600">{where}</span>
          </li>
        ))}
      </ul>
      <p className="mt-3 text-xs text-stone-600">
        Then start a session in the agent; the vault&apos;s AGENTS.md tells it the memory protocol, and the Sessions page shows what it did.
      </p>
    </section>
  );
}
