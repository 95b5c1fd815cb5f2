/** A `model_name` with a `*` (`anthropic/*`, `*`, `team-a/*`): it serves every name it matches. */
export function isWildcard(alias: string): boolean {
  return alias.includes('*');
}

/** The pattern of a wildcard `model_name`: each `*` matches any text (captured), the rest literally. */
export function aliasPattern(alias: string): RegExp {
  const source = alias
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('(.*)');
  return new RegExp(`^${source}$`, 's');
}

/** The upstream model a wildcard entry serves `name` with: the template's `*`s filled with what the pattern's matched. */
export function fillTemplate(pattern: RegExp, template: string, name: string): string | undefined {
  const match = pattern.exec(name);
  if (!match) return undefined;
  const captured = match.slice(1);
  let index = 0;
  // `model: "*"` under `model_name: "*"` is the requested name itself; extra `*`s take the last capture.
  return template.replace(/\*/g, () => captured[Math.min(index++, captured.length - 1)] ?? '');
}

/** How specific a pattern is: longer literal text first, so `anthropic/claude-*` wins over `anthropic/*`, and `*` is last. */
export function patternSpecificity(alias: string): number {
  return alias.replace(/\*/g, '').length;
}
