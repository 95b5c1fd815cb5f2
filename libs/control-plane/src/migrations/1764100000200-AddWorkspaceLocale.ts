import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The language tag every product UI writes numbers, money and dates in (`de-DE`); null leaves it
 * to each person's browser, as before (issue 32).
 */
export class AddWorkspaceLocale1764100000200 implements MigrationInterface {
  name = 'AddWorkspaceLocale1764100000200';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('alter table workspace add column locale text');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('alter table workspace drop column locale');
  }
}
