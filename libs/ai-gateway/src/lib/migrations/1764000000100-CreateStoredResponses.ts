import { MigrationInterface, QueryRunner } from 'typeorm';

/** Stored responses of the Responses API, read by id (a conversation's chain in one recursive query), by item id (item references) and pruned by age. */
export class CreateStoredResponses1764000000100 implements MigrationInterface {
  name = 'CreateStoredResponses1764000000100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table stored_responses (
        id text primary key,
        project text,
        key_id uuid,
        created_at timestamptz not null,
        expires_at timestamptz not null,
        status text not null,
        deployment_id text,
        upstream_id text,
        previous_response_id text,
        input jsonb not null,
        response jsonb not null,
        background boolean not null default false
      )`);
    await queryRunner.query('create index stored_responses_expiry on stored_responses (expires_at)');
    // item_reference inputs name an item of an earlier response's output or input by its id.
    await queryRunner.query(`create index stored_responses_output_items on stored_responses using gin ((response -> 'output') jsonb_path_ops)`);
    await queryRunner.query('create index stored_responses_input_items on stored_responses using gin (input jsonb_path_ops)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('drop table stored_responses');
  }
}
