import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiForbiddenResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { AdminOnly } from '@arbor/auth';

/** An administration controller: administrators only (machines too get 403), documented as such. */
export function AdministrationApi(): ClassDecorator & MethodDecorator {
  return applyDecorators(
    ApiBearerAuth(),
    ApiUnauthorizedResponse({ description: 'No valid bearer token.' }),
    ApiForbiddenResponse({ description: 'The caller is not an administrator (machine clients included).' }),
    AdminOnly(),
  );
}
