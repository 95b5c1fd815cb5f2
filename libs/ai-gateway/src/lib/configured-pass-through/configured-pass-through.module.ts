import { Module } from '@nestjs/common';
import { CallsModule } from '../calls/calls.module';
import { ConfiguredPassThroughRoutes } from './configured-pass-through.routes';

/** general_settings.pass_through_endpoints: routes the operator configures to any upstream. */
@Module({
  imports: [CallsModule],
  providers: [ConfiguredPassThroughRoutes],
})
export class ConfiguredPassThroughModule {}
