import { MigrationInterface, QueryRunner } from 'typeorm';

/** The streams of background responses, event by event, for readers that come (back) later from any replica; gone with their response. */
export class CreateStoredResponseEvents1764100000300 implements MigrationInterface {
  name = 'CreateStoredResponseEvents1764100000300';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table stored_response_events (
        response_id text not null references stored_responses (id) on delete cascade,
        sequence_number integer not null,
        event jsonb not null,
        primary key (response_id, sequence_number)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('drop table stored_response_events');
  }
}
