import { Module } from '@nestjs/common';
import { AliasCatalogue } from './alias-catalogue';
import { AliasesController } from './aliases.controller';

/** The aliases with their deployments, prices and health, for the admin API (and the UI's Models page). */
@Module({
  controllers: [AliasesController],
  providers: [AliasCatalogue],
})
export class AliasesModule {}
