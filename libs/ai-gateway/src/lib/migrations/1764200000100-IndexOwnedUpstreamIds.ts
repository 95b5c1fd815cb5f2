import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The vendor pass-throughs ask who owns an upstream id (`/openai/v1/files/file-abc`) whichever route
 * made it: owned resources and stored responses by upstream id.
 */
export class IndexOwnedUpstreamIds1764200000100 implements MigrationInterface {
  name = 'IndexOwnedUpstreamIds1764200000100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('create index owned_resources_by_upstream_id on owned_resources (upstream_id, kind)');
    await queryRunner.query('create index stored_responses_by_upstream_id on stored_responses (upstream_id) where upstream_id is not null');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('drop index stored_responses_by_upstream_id');
    await queryRunner.query('drop index owned_resources_by_upstream_id');
  }
}
