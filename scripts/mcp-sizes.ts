/**
 * What Lucid's MCP server costs a model's context, in characters: the tool list a client receives
 * (per tool: description, input schema, output schema), the server's instructions, and each tool's
 * reply to a typical call (tests/support/mcp-sizes.ts runs the calls). Measured on MCP_VAULT_FILES
 * with a few longer notes, and on an `lucid init`-ed copy of a fixture vault when the fixtures exist.
 *
 * Run: node --import tsx scripts/mcp-sizes.ts [fixture-name] [query...] [--json]
 * (default: obsidian-tasks-docs, "recurring tasks with a due date"). tests/mcp/sizes.spec.ts holds
 * the budgets these figures set.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { initVault, openVault } from '../lib/vault/index';
import type { Vault } from '../lib/vault/vault';
import { copyFixture, FIXTURES_DIR, testGitEnv, commitAsOwner } from '../tests/support/fixtures';
import { connectInMemory } from '../tests/support/mcp';
import {
  replyChars,
  runTypicalSession,
  SIZE_SCENARIO,
  SIZE_VAULT_FILES,
  type SizeScenario,
  textChars,
  toolListChars,
  toolParts,
} from '../tests/support/mcp-sizes';
import { makeTempVault } from '../tests/support/temp-vault';

interface Figures {
  vault: string;
  instructions: number;
  toolList: number;
  tools: ReturnType<typeof toolParts>[];
  calls: { label: string; text: number; reply: number }[];
}

async function measure(name: string, vault: Vault, scenario: SizeScenario): Promise<Figures> {
  const mcp = await connectInMemory(vault);
  try {
    const { tools } = await mcp.client.listTools();
    const calls = await runTypicalSession(mcp, vault, scenario);
    return {
      vault: name,
      instructions: (mcp.client.getInstructions() ?? '').length,
      toolList: toolListChars(tools),
      tools: tools.map(toolParts),
      calls: calls.map((c) => ({ label: c.label, text: textChars(c.result), reply: replyChars(c.result) })),
    };
  } finally {
    await mcp.close();
  }
}

async function synthetic(): Promise<Figures> {
  const tv = makeTempVault(SIZE_VAULT_FILES);
  const vault = await tv.open();
  try {
    return await measure('MCP_VAULT_FILES and longer notes', vault, SIZE_SCENARIO);
  } finally {
    vault.close();
    tv.cleanup();
  }
}

async function fixture(name: string, query: string): Promise<Figures> {
  const { root, cleanup } = copyFixture(name);
  const env = testGitEnv();
  try {
    commitAsOwner(root, env);
    await initVault({ dir: root, env });
    const vault = await openVault({ root, env });
    try {
      return await measure(`${name} (lucid init-ed)`, vault, { task: `Answer a question about ${name}`, query });
    } finally {
      vault.close();
    }
  } finally {
    cleanup();
  }
}

function table(f: Figures): string {
  const lines = [
    `## ${f.vault}`,
    '',
    `Tool list (tools/list as JSON): ${f.toolList} characters. Instructions: ${f.instructions}.`,
    '',
    '| tool | entry | description | input schema | output schema |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...f.tools.map((t) => `| ${t.name} | ${t.total} | ${t.description} | ${t.input} | ${t.output} |`),
    '',
    '| call | text block | whole reply |',
    '| --- | ---: | ---: |',
    ...f.calls.map((c) => `| ${c.label} | ${c.text} | ${c.reply} |`),
  ];
  return lines.join('\n');
}

const args = process.argv.slice(2);
const asJson = args.includes('--json');
const [name = 'obsidian-tasks-docs', ...words] = args.filter((a) => a !== '--json');
const query = words.join(' ') || 'recurring tasks with a due date';

const figures = [await synthetic()];
if (existsSync(path.join(FIXTURES_DIR, name))) figures.push(await fixture(name, query));
else console.error(`No fixture vault ${name} in ${FIXTURES_DIR}; measured the synthetic vault only.`);
console.log(asJson ? JSON.stringify(figures, null, 2) : figures.map(table).join('\n\n'));
