import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Vault } from '../../lib/vault/vault';
import { connectInMemory, textOf, type McpPair } from '../support/mcp';
import { type MeasuredCall, runTypicalSession, SIZE_SCENARIO, SIZE_VAULT_FILES, textChars, toolListChars } from '../support/mcp-sizes';
import { makeTempVault, type TempVault } from '../support/temp-vault';

/**
 * Results sized for a model: what the tool list and each tool's reply cost an agent's context, in
 * characters, on MCP_VAULT_FILES with a few longer notes (scripts/mcp-sizes.ts prints the figures).
 * The budgets are the measured sizes with some room; a reply or a description that grows past
 * one fails here, so the growth is a decision rather than an accident.
 */

/**
 * tools/list as a client receives it (names, titles, descriptions, input and output schemas): 18,340
 * before issue 12, 15,638 with its cuts, 17,696 once read_note gained paging, headings and titles,
 * 20,124 with issue 13's edit_note (2,398). The budget leaves room for move_note's entry (about 1,800).
 * 23,133 with issue 16's dream_candidates (1,333).
 */
const TOOL_LIST_BUDGET = 23_500;
/** A tool's description (339 at most measured); the details belong in its input fields' descriptions and the instructions. */
const DESCRIPTION_BUDGET = 350;
/** One input field's description. */
const FIELD_DESCRIPTION_BUDGET = 160;
/** The text block of each typical reply: the measured size and about a quarter more. */
const REPLY_BUDGETS: Record<string, number> = {
  'start_session (first session)': 1_800, // 1,406 (with the project's notes and the top search hits)
  search_notes: 1_400, // 1,093
  'read_note (first hit)': 2_800, // 2,202 (with headings, link titles and paging fields)
  'write_note (create)': 450, // 315
  'edit_note (replace_section)': 450, // 353
  record_decision: 500, // 395
  'propose_to_inbox (update)': 450, // 311
  'molt_skill (new skill)': 500, // 373
  end_session: 900, // 699
  move_note: 620, // 490
  dream_candidates: 200, // 87 (one new skill: nothing to tidy)
  "start_session (after a person's edit)": 3_200, // 2,544
  'write_note (conflict)': 900, // 704
  'read_note (missing: an error)': 300, // 47
  'end_session (second)': 700, // 505
};

let tv: TempVault;
let vault: Vault;
let mcp: McpPair;
let tools: Tool[];
let calls: MeasuredCall[];

beforeAll(async () => {
  tv = makeTempVault(SIZE_VAULT_FILES);
  vault = await tv.open();
  mcp = await connectInMemory(vault);
  ({ tools } = await mcp.client.listTools());
  calls = await runTypicalSession(mcp, vault, SIZE_SCENARIO);
});

afterAll(async () => {
  await mcp?.close();
  vault?.close();
  tv?.cleanup();
});

describe('the text block of a reply', () => {
  it('is the structured result once, as compact JSON, for every tool; an error is a sentence', () => {
    expect(new Set(calls.map((c) => c.tool))).toEqual(new Set(tools.map((t) => t.name)));
    for (const { label, result } of calls) expect(result.content, label).toHaveLength(1);
    // Which replies have no structured result is part of the test: only the error with nothing to add.
    const structured = calls.filter((c) => c.result.structuredContent);
    const plain = calls.filter((c) => !c.result.structuredContent);
    expect(plain.map((c) => c.label)).toEqual(['read_note (missing: an error)']);
    for (const { label, result } of structured) {
      const text = textOf(result);
      expect(JSON.parse(text), label).toEqual(result.structuredContent);
      expect(text, label).toBe(JSON.stringify(result.structuredContent));
    }
    for (const { label, result } of plain) {
      const text = textOf(result);
      expect(result.isError, label).toBe(true);
      expect(text, label).toMatch(/^[A-Z].*\.$/s);
      expect(() => JSON.parse(text), label).toThrow();
    }
    const conflict = calls.find((c) => c.label === 'write_note (conflict)')?.result;
    expect(conflict?.isError).toBe(true);
    expect(conflict?.structuredContent).toMatchObject({ status: 'conflict', message: expect.stringMatching(/inbox/) });
  });
});

describe('what the server costs a model', () => {
  it(`lists its tools in under ${TOOL_LIST_BUDGET} characters, each description short and each input field described briefly`, () => {
    expect(toolListChars(tools)).toBeLessThanOrEqual(TOOL_LIST_BUDGET);
    for (const tool of tools) {
      expect(tool.description?.length ?? 0, tool.name).toBeLessThanOrEqual(DESCRIPTION_BUDGET);
      const properties = (tool.inputSchema.properties ?? {}) as Record<string, { description?: string }>;
      for (const [field, schema] of Object.entries(properties)) {
        expect(schema.description?.length ?? 0, `${tool.name}.${field}`).toBeGreaterThan(0);
        expect(schema.description?.length ?? 0, `${tool.name}.${field}`).toBeLessThanOrEqual(FIELD_DESCRIPTION_BUDGET);
      }
    }
  });

  it("keeps each typical reply's text within its budget", () => {
    expect(calls.map((c) => c.label).sort()).toEqual(Object.keys(REPLY_BUDGETS).sort());
    for (const { label, result } of calls) expect(textChars(result), label).toBeLessThanOrEqual(REPLY_BUDGETS[label]);
  });

  it('explains every write mode in the mode field', () => {
    const properties = tools.find((t) => t.name === 'write_note')?.inputSchema.properties ?? {};
    const mode = (properties as Record<string, { enum?: string[]; description?: string }>).mode;
    expect(mode.enum?.length).toBeGreaterThan(0);
    for (const value of mode.enum ?? []) expect(mode.description).toContain(value);
  });
});
