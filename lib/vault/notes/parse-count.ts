/**
 * How many times front matter has been parsed as YAML in this process. Tests read it to pin what
 * one write costs; it is deliberately not exported from lib/vault's index.
 */
export const frontmatterParses = { count: 0 };
