import { ApiProperty } from '@nestjs/swagger';

export class AuditEntryResponse {
  @ApiProperty({ example: '1042' })
  id!: string;

  @ApiProperty({ format: 'date-time' })
  occurred_at!: string;

  @ApiProperty({ enum: ['person', 'machine', 'system'] })
  actor_kind!: string;

  @ApiProperty({ description: "The caller's OIDC subject (`control-plane` for the system)." })
  actor_subject!: string;

  @ApiProperty({ type: String, nullable: true, example: 'Ada Administrator', description: "The person's display name when the subject is a known user." })
  actor_name!: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'The client the caller used (azp).' })
  actor_client_id!: string | null;

  @ApiProperty({ example: 'project.created' })
  action!: string;

  @ApiProperty({ type: String, nullable: true, format: 'uuid' })
  project_id!: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'What the entry is about: a user, project, repository, delivery… id.' })
  target_id!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'Alice Anderson',
    description: 'When the target is a known user: their display name (else email), e.g. whose permissions were replaced.',
  })
  target_name!: string | null;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'What changed; never a secret value.' })
  details!: Record<string, unknown>;
}

export class AuditListResponse {
  @ApiProperty({ type: [AuditEntryResponse], description: 'Newest first.' })
  entries!: AuditEntryResponse[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as before_id for the next (older) page; null on the last page.' })
  next_before_id!: string | null;
}
