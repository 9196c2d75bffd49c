import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { SessionOwner, Vault } from '../../lib/vault';

/** What each tool's register function gets from buildServer (mcp/tools.ts). */
export interface ToolContext {
  vault: Vault;
  /** Who owns the sessions this server starts. */
  owner: SessionOwner;
  /** McpServer's registerTool, also keeping the tool for the plain tool list. */
  register: McpServer['registerTool'];
  /** A handler as the server runs it: refused while the server closes, failures as error replies, awaited on close. */
  tool<A>(name: string, handler: (args: A) => Promise<CallToolResult>): (args: A) => Promise<CallToolResult>;
  /** The open sessions this server works on, where searches and reads are recorded. */
  stillOpen(): string[];
  /** Marks `session` as one this server works on, when it is open. */
  use(session: string): void;
  /** A session this server started: ended as abandoned if its client goes away first. */
  started(session: string): void;
  /** A session that ended through this server. */
  ended(session: string): void;
}
