import { ApiProperty } from '@nestjs/swagger';
import { RepositorySecretState, RepositorySecretValue } from '../repository-secret.service';

/** The decrypted token, as products read it. */
export class RepositorySecretValueResponse {
  @ApiProperty({ format: 'uuid' })
  project_id!: string;

  @ApiProperty({ example: 'alpha' })
  project_slug!: string;

  @ApiProperty({ example: 'ghs_demoAlphaToken0001', description: 'The decrypted repository token.' })
  value!: string;

  @ApiProperty({ format: 'date-time', description: 'When the token was last replaced.' })
  updated_at!: string;

  static of(secret: RepositorySecretValue): RepositorySecretValueResponse {
    return { project_id: secret.projectId, project_slug: secret.projectSlug, value: secret.value, updated_at: secret.updatedAt.toISOString() };
  }
}

/** Whether a project has a token, without the token. */
export class RepositorySecretStateResponse {
  @ApiProperty()
  configured!: boolean;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When the token was last replaced; null without one.' })
  updated_at!: string | null;

  @ApiProperty({ type: String, nullable: true, example: '3f2a9c0b1d4e5f60', description: 'Fingerprint of the master key the token is encrypted under (never the key).' })
  key_id!: string | null;

  static of(state: RepositorySecretState): RepositorySecretStateResponse {
    return { configured: state.configured, updated_at: state.updatedAt?.toISOString() ?? null, key_id: state.keyId };
  }
}
