import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsString, Matches } from 'class-validator';
import { IsGitBranchName } from './git-branch-name';

/** A DNS host name with at least two labels, stored lower-cased: `github.com`, `git.example.com`. */
export const SOURCE_HOST = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;
/** GitHub's rule for user and organisation names: 1–39 letters, digits and single inner hyphens. */
export const REPOSITORY_OWNER = /^[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){0,38}$/i;
/** GitHub's rule for repository names: 1–100 letters, digits, `.`, `-`, `_`; not `.` or `..`; no `.git` suffix. */
export const REPOSITORY_NAME = /^(?!\.\.?$)(?!.*\.git$)[a-z0-9._-]{1,100}$/i;
/** A source-host app installation id: a positive integer, kept as text (GitHub's are 64-bit). */
export const INSTALLATION_ID = /^[1-9][0-9]{0,19}$/;

export function IsSourceHost(): PropertyDecorator {
  return applyDecorators(
    Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.toLowerCase() : value)),
    IsString(),
    Matches(SOURCE_HOST, { message: '$property must be a host name such as github.com' }),
  );
}

export function IsRepositoryOwner(): PropertyDecorator {
  return applyDecorators(IsString(), Matches(REPOSITORY_OWNER, { message: '$property must be 1 to 39 letters, digits or single hyphens, not starting or ending with a hyphen' }));
}

export function IsRepositoryName(): PropertyDecorator {
  return applyDecorators(
    IsString(),
    Matches(REPOSITORY_NAME, { message: '$property must be 1 to 100 letters, digits, ".", "-" or "_", not "." or "..", without a ".git" suffix' }),
  );
}

export function IsBranch(): PropertyDecorator {
  return applyDecorators(IsString(), IsGitBranchName());
}

/** Digits as a string or a JSON number (a safe positive integer), stored as text. */
export function IsInstallationId(): PropertyDecorator {
  return applyDecorators(
    Transform(({ value }: { value: unknown }) => (typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? String(value) : value)),
    IsString({ message: '$property must be a positive integer, as a number or a string of digits' }),
    Matches(INSTALLATION_ID, { message: '$property must be a positive integer, as a number or a string of digits' }),
  );
}
