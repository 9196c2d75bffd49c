import { setFrontmatterFields, splitNote } from '../notes/frontmatter';

/**
 * A molt's text (VAULT-FORMAT "Skills and molting"): `baseText`'s front matter with `version`,
 * `last_updated` and `updated` set (and `trigger` when given), every other property kept line for
 * line, followed by `body`. molt_skill and a restore from the dashboard or the CLI both write this.
 */
export function moltedText(baseText: string, body: string, fields: { version: number; today: string; trigger?: string }): string {
  const withFields = setFrontmatterFields(baseText, {
    version: fields.version,
    last_updated: fields.today,
    updated: fields.today,
    ...(fields.trigger !== undefined ? { trigger: fields.trigger } : {}),
  });
  return withFields.slice(0, splitNote(withFields).bodyStart) + body;
}
