import { Module } from '@nestjs/common';
import { CallsModule } from '../calls/calls.module';
import { SpendModule } from '../spend/spend.module';
import { BatchLedger } from './batch-ledger';
import { BatchesRoutes } from './batches.routes';
import { FilesRoutes } from './files.routes';
import { HostedResourcesRoutes } from './hosted-resources.routes';
import { ObjectReferences } from './object-references';
import { ResourceStore } from './resource-store';
import { ResourceUpstream } from './resource-upstream';

/** Files, batches and hosted resources kept for their project, and the check that a call names only its project's. */
@Module({
  imports: [CallsModule, SpendModule],
  providers: [ResourceStore, ObjectReferences, ResourceUpstream, BatchLedger, FilesRoutes, BatchesRoutes, HostedResourcesRoutes],
  exports: [ResourceStore, ObjectReferences],
})
export class ResourcesModule {}
