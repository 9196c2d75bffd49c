import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

const isBareType = (schema: unknown): schema is { type: string } =>
  typeof schema === 'object' && schema !== null && Object.keys(schema).length === 1 && typeof (schema as { type?: unknown }).type === 'string';

/**
 * A schema as zod writes it for the SDK (draft-07), written plainly for the tool list a model
 * reads: no `$schema` line, `"type": ["string", "null"]` for a nullable field instead of an
 * `anyOf` of two schemas, no safe-integer bounds on every integer, and no
 * `additionalProperties: false`, which zod adds to every result object although the contract's
 * objects let more keys through (so a client that validates with the list accepts what the
 * server's own check accepts). Otherwise the same constraints.
 */
function plainSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(plainSchema);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$schema' || (key === 'additionalProperties' && value === false)) continue;
    if ((key === 'minimum' && value === Number.MIN_SAFE_INTEGER) || (key === 'maximum' && value === Number.MAX_SAFE_INTEGER)) continue;
    out[key] =
      key === 'properties' && typeof value === 'object' && value !== null
        ? Object.fromEntries(Object.entries(value).map(([name, property]) => [name, plainSchema(property)]))
        : plainSchema(value);
  }
  const options: unknown[] = Array.isArray(out.anyOf) ? out.anyOf : [];
  const [first, second] = options;
  if (options.length === 2 && out.type === undefined && isBareType(first) && isBareType(second) && second.type === 'null') {
    delete out.anyOf;
    out.type = [first.type, 'null'];
  }
  return out;
}

/**
 * McpServer's registerTool, also keeping each tool for the list the server answers with: the SDK lists
 * the same tools with their schemas as zod writes them; the plain form (plainSchema) reads the same to
 * a client and costs a model's context less. The list is built once, at the first request.
 */
export function plainToolList(server: McpServer): { register: McpServer['registerTool']; listTools: () => Tool[] } {
  const listed = new Map<string, { title?: string; description?: string; input: z.ZodType; output: z.ZodType; annotations?: ToolAnnotations }>();
  const register: McpServer['registerTool'] = (name, config, cb) => {
    listed.set(name, {
      title: config.title,
      description: config.description,
      input: config.inputSchema as unknown as z.ZodType,
      output: config.outputSchema as unknown as z.ZodType,
      annotations: config.annotations,
    });
    return server.registerTool(name, config, cb);
  };
  let toolList: Tool[] | null = null;
  const listTools = (): Tool[] =>
    (toolList ??= [...listed].map(([name, t]) => ({
      name,
      title: t.title,
      description: t.description,
      inputSchema: plainSchema(z.toJSONSchema(t.input, { target: 'draft-7', io: 'input' })) as Tool['inputSchema'],
      outputSchema: plainSchema(z.toJSONSchema(t.output, { target: 'draft-7', io: 'output' })) as Tool['outputSchema'],
      annotations: t.annotations,
    })));

  return { register, listTools };
}
