import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export const THEMES = ['light', 'dark', 'system'] as const;
export type Theme = (typeof THEMES)[number];

/** A person known to the control plane: provisioned at first sign-in, or pre-created by email. */
@Entity({ name: 'users' })
export class User {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  /** The OIDC `sub`; null for a user an administrator pre-created who has not signed in yet. */
  @Column({ type: 'text', nullable: true, unique: true })
  subject!: string | null;

  /** Lower-cased; how pre-created users are matched at their first sign-in. */
  @Column({ type: 'text', nullable: true, unique: true })
  email!: string | null;

  @Column({ name: 'display_name', type: 'text', default: '' })
  displayName!: string;

  @Column({ type: 'boolean', default: false })
  disabled!: boolean;

  /** Administrator granted in the control plane (besides the realm role control-plane-admin). */
  @Column({ name: 'is_admin', type: 'boolean', default: false })
  isAdmin!: boolean;

  /** Held the realm role control-plane-admin in their last token the control plane saw. */
  @Column({ name: 'idp_admin', type: 'boolean', default: false })
  identityProviderAdmin!: boolean;

  @Column({ type: 'text', default: 'system' })
  theme!: Theme;

  @Column({ name: 'default_project_id', type: 'uuid', nullable: true })
  defaultProjectId!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
