import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

class ErrorDetail {
  @ApiProperty({ example: 'project_not_found', description: 'Stable, machine-readable, snake_case.' })
  code!: string;

  @ApiProperty({ example: 'No project 5b0c….' })
  message!: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { fields: { timezone: ['timezone must be an IANA time zone such as Europe/Berlin or UTC'] } },
    description: 'Facts a client can act on, such as the fields or parameters that were wrong.',
  })
  details?: Record<string, unknown>;
}

/** The body of every error answer (`@arbor/platform`'s ErrorBody). */
export class ErrorBody {
  @ApiProperty({ type: ErrorDetail })
  error!: ErrorDetail;
}
