import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsNotEmpty, IsString, Matches, MaxLength } from 'class-validator';
import { PROJECT_SLUG } from '@arbor/contract';

export { PROJECT_SLUG };

export const PROJECT_NAME_MAX_LENGTH = 200;

export function IsProjectSlug(): PropertyDecorator {
  return applyDecorators(IsString(), Matches(PROJECT_SLUG, { message: '$property must be 1 to 64 lower-case letters, digits and hyphens, not starting or ending with a hyphen' }));
}

export function IsProjectName(): PropertyDecorator {
  return applyDecorators(
    Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value)),
    IsString(),
    IsNotEmpty(),
    MaxLength(PROJECT_NAME_MAX_LENGTH),
  );
}
