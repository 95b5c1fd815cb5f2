import { Module } from '@nestjs/common';
import { ProductsModule } from '../products/products.module';
import { EffectivePermissionsController } from './effective-permissions.controller';
import { EffectivePermissionsService } from './effective-permissions.service';
import { PermissionGrantsController } from './permission-grants.controller';
import { PermissionGrants } from './permission-grants.service';

@Module({
  imports: [ProductsModule],
  controllers: [EffectivePermissionsController, PermissionGrantsController],
  providers: [EffectivePermissionsService, PermissionGrants],
  exports: [EffectivePermissionsService],
})
export class PermissionsModule {}
