import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** One permission key granted to a user, workspace-wide (projectId null) or on one project. */
@Entity({ name: 'permission_grants' })
export class PermissionGrant {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId!: string;

  @Column({ name: 'project_id', type: 'uuid', nullable: true })
  projectId!: string | null;

  /** `<product>` (sign-in) or `<product>.<role>`. */
  @Column({ name: 'permission_key', type: 'text' })
  permissionKey!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
