import { Module } from '@nestjs/common';
import { KeyProject } from '../admin/admin-access';
import { LimitsModule } from '../limits/limits.module';
import { ProjectsModule } from '../projects/projects.module';
import { KeysController } from './keys.controller';
import { KeysService } from './keys.service';

/** The admin API of virtual keys, and the project a key belongs to (for the permission check of admin routes). */
@Module({
  imports: [LimitsModule, ProjectsModule],
  controllers: [KeysController],
  providers: [KeysService, KeyProject],
  exports: [KeysService, KeyProject],
})
export class KeysModule {}
