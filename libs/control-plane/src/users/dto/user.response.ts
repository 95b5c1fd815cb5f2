import { ApiProperty } from '@nestjs/swagger';
import { THEMES, Theme, User } from '../user.entity';

/** A user as administrators see it. */
export class UserResponse {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ type: String, nullable: true, description: 'The OIDC subject; null until a pre-created user first signs in.' })
  subject!: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'alice@arbor.local' })
  email!: string | null;

  @ApiProperty({ example: 'Alice Anderson' })
  display_name!: string;

  @ApiProperty({ description: 'A disabled user has no effective permissions and no administration.' })
  disabled!: boolean;

  @ApiProperty({ description: 'Administrator granted in the control plane (is_admin), which PATCH changes; see also identity_provider_admin.' })
  admin!: boolean;

  @ApiProperty({
    description:
      'Administrator through the identity provider: held the realm role control-plane-admin in the last token they called the control plane with. Changed only in the identity provider, not by PATCH.',
  })
  identity_provider_admin!: boolean;

  @ApiProperty({ enum: THEMES })
  theme!: Theme;

  @ApiProperty({ type: String, format: 'uuid', nullable: true })
  default_project_id!: string | null;

  @ApiProperty({ type: String, format: 'date-time' })
  created_at!: string;

  static of(user: User): UserResponse {
    return {
      id: user.id,
      subject: user.subject,
      email: user.email,
      display_name: user.displayName,
      disabled: user.disabled,
      admin: user.isAdmin,
      identity_provider_admin: user.identityProviderAdmin,
      theme: user.theme,
      default_project_id: user.defaultProjectId,
      created_at: user.createdAt.toISOString(),
    };
  }
}

export class UserListResponse {
  @ApiProperty({ type: [UserResponse], description: 'Oldest first.' })
  users!: UserResponse[];

  @ApiProperty({ type: String, nullable: true, format: 'uuid', description: 'Pass as after_id for the next page; null on the last page.' })
  next_after_id!: string | null;
}
