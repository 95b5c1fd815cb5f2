import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The stored responses being answered (reserved in the foreground, not yet completed), by project:
 * a reader of an item reference not found looks here for responses it should wait for. It holds a
 * row only for the moment a call runs.
 */
export class IndexAnsweredResponses1764100000400 implements MigrationInterface {
  name = 'IndexAnsweredResponses1764100000400';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`create index stored_responses_answering on stored_responses (project) where status = 'in_progress' and not background`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('drop index stored_responses_answering');
  }
}
