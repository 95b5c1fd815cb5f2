import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** A source repository of a project, e.g. github.com/arbor-demo/alpha-service on branch main. */
@Entity({ name: 'repositories' })
export class Repository {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'project_id', type: 'uuid' })
  projectId!: string;

  /** e.g. github.com */
  @Column({ name: 'source_host', type: 'text' })
  sourceHost!: string;

  @Column({ type: 'text' })
  owner!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  branch!: string;

  /** The source-host app installation id (a GitHub App installation, for instance). */
  @Column({ name: 'installation_id', type: 'text' })
  installationId!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
