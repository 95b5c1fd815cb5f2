import { ValidateBy, ValidationOptions } from 'class-validator';

export const BRANCH_NAME_MAX_LENGTH = 255;

// Control characters, space and the characters git reserves for revision syntax.
// eslint-disable-next-line no-control-regex -- refusing control characters is the point
const FORBIDDEN = /[\x00-\x20\x7f~^:?*[\\]/;

/** A branch name `git check-ref-format --branch` accepts (git-check-ref-format(1)). */
export function isGitBranchName(name: string): boolean {
  if (name.length === 0 || name.length > BRANCH_NAME_MAX_LENGTH) return false;
  if (name === '@' || name === 'HEAD' || name.startsWith('-')) return false;
  if (name.startsWith('/') || name.endsWith('/') || name.endsWith('.')) return false;
  if (name.includes('..') || name.includes('//') || name.includes('@{') || FORBIDDEN.test(name)) return false;
  return name.split('/').every((component) => !component.startsWith('.') && !component.endsWith('.lock'));
}

export function IsGitBranchName(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isGitBranchName',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && isGitBranchName(value),
        defaultMessage: () => '$property must be a valid git branch name (no spaces, "..", "~^:?*[\\", "@{", leading "-" or ".", trailing "/", "." or ".lock")',
      },
    },
    options,
  );
}
