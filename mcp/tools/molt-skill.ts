import { moltSkill, moltSkillInputSchema, moltSkillResultSchema } from '../../lib/vault';
import type { ToolContext } from './context';
import { reply } from './reply';

/** molt_skill: a skill created or moved to its next version. */
export function registerMoltSkill({ vault, register, tool, use }: ToolContext): void {
  register(
    'molt_skill',
    {
      title: 'Create or improve a skill',
      description: `Keep a procedure as a skill (${vault.layout.skills}/<name>.md): a new one starts at version 1 and needs a trigger; an existing one goes to version + 1. Each change is a reviewable commit.`,
      inputSchema: moltSkillInputSchema,
      outputSchema: moltSkillResultSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    tool('molt_skill', async (args) => {
      use(args.session);
      const result = await moltSkill(vault, args);
      return reply({ ...result }, result.status !== 'written');
    }),
  );
}
