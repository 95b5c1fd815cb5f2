import { Module } from '@nestjs/common';
import { CallsModule } from '../calls/calls.module';
import { GuardrailsModule } from '../guardrails/guardrails.module';
import { RealtimeSessionsRoutes } from './realtime-sessions.routes';
import { RealtimeSocket } from './realtime-socket';

/** Realtime models: the WebSocket relayed and metered, and WebRTC session creation. */
@Module({
  imports: [CallsModule, GuardrailsModule],
  providers: [RealtimeSocket, RealtimeSessionsRoutes],
})
export class RealtimeModule {}
