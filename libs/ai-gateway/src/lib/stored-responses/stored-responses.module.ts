import { Module } from '@nestjs/common';
import { CallsModule } from '../calls/calls.module';
import { ResourcesModule } from '../resources/resources.module';
import { ResponsesMemory } from './responses-memory';
import { ResponsesSocket } from './responses-socket';
import { ResponsesStore } from './responses-store';
import { StoredResponsesRoutes } from './stored-responses.routes';

/** The Responses API's memory: stored responses, background runs, WebSocket turns. */
@Module({
  imports: [CallsModule, ResourcesModule],
  providers: [ResponsesStore, ResponsesMemory, StoredResponsesRoutes, ResponsesSocket],
  exports: [ResponsesMemory],
})
export class StoredResponsesModule {}
