import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { VaultError } from '../../lib/vault';

/**
 * A tool's reply: the structured result, and the same result once more as compact JSON text, as the
 * MCP spec asks for clients that ignore structuredContent. A model reads one of the two, so the text
 * adds no summary sentence and no indentation: what a model should act on (a write's `message`)
 * is a field of the result.
 */
export function reply(structured: { [key: string]: unknown }, isError = false): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured, ...(isError ? { isError: true } : {}) };
}

/** An expected failure as a sentence a model can act on. */
export function errorReply(error: VaultError): CallToolResult {
  const violations = Array.isArray(error.details?.violations) ? (error.details.violations as { field: string; message: string }[]) : [];
  const detail = violations.length > 1 ? `\n${violations.map((v) => `- ${v.field}: ${v.message}`).join('\n')}` : '';
  return { content: [{ type: 'text', text: `${error.message}${detail}` }], isError: true };
}
