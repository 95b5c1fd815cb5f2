import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** The one workspace of this control plane (row id 1). */
@Entity({ name: 'workspace' })
export class Workspace {
  @PrimaryColumn({ type: 'smallint', default: 1 })
  id!: number;

  @Column({ type: 'text' })
  name!: string;

  /** IANA zone name, e.g. Europe/Berlin. */
  @Column({ type: 'text', default: 'UTC' })
  timezone!: string;

  /** BCP 47 language tag for numbers, money and dates in every product UI; null: each person's browser's. */
  @Column({ type: 'text', nullable: true })
  locale!: string | null;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
