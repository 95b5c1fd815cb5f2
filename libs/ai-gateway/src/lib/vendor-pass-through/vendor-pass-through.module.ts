import { Module } from '@nestjs/common';
import { CallsModule } from '../calls/calls.module';
import { GuardrailsModule } from '../guardrails/guardrails.module';
import { ResourcesModule } from '../resources/resources.module';
import { PassThroughOwnership } from './pass-through-ownership';
import { VendorPassThroughRoutes } from './vendor-pass-through.routes';

/** Each provider folder's whole API under /<route>/*, metered, its objects kept to their project. */
@Module({
  imports: [CallsModule, ResourcesModule, GuardrailsModule],
  providers: [VendorPassThroughRoutes, PassThroughOwnership],
})
export class VendorPassThroughModule {}
