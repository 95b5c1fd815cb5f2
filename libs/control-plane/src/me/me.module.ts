import { Module } from '@nestjs/common';
import { PermissionsModule } from '../permissions/permissions.module';
import { MeController } from './me.controller';
import { MeService } from './me.service';

/** The shell endpoints `/api/v1/me`, `/api/v1/me/theme`, `/api/v1/me/default-project`. */
@Module({
  imports: [PermissionsModule],
  controllers: [MeController],
  providers: [MeService],
})
export class MeModule {}
