import type { IncomingMessage } from 'node:http';
import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { TokenVerifier } from '../identity/token-verifier';
import { isHandlerClass, OnProjectsChanged, ProjectSyncContext, ResolvedSyncOptions, SYNC_OPTIONS, SYNC_VERIFIER } from './control-plane-sync.options';
import { NotTheControlPlane, ProjectSyncFailed } from './control-plane-sync.exception';
import { IdenticalSyncCoalescer } from './identical-sync-coalescer';
import { slugsOf } from './project-sync-request';

/**
 * One project-sync call: the caller's token (the product's issuer and audience, signature), the
 * caller itself (the control plane's machine client), the body, then the product's handler,
 * awaited: the answer is 204 only once the handler succeeded, so a failure is delivered again.
 */
@Injectable()
export class ProjectSyncReceiver implements OnModuleInit {
  private readonly logger = new Logger('control-plane-sync');
  private handler!: OnProjectsChanged;
  private readonly coalescer = new IdenticalSyncCoalescer();

  constructor(
    @Inject(SYNC_OPTIONS) private readonly options: ResolvedSyncOptions,
    @Inject(SYNC_VERIFIER) private readonly verifier: TokenVerifier,
    private readonly moduleRef: ModuleRef,
  ) {}

  onModuleInit(): void {
    const { handler } = this.options;
    if (!isHandlerClass(handler)) {
      this.handler = { projectsChanged: handler };
      return;
    }
    let instance: OnProjectsChanged;
    try {
      // Provided by the product in any of its modules, so it keeps its own dependencies there.
      instance = this.moduleRef.get(handler, { strict: false });
    } catch {
      throw new Error(`ControlPlaneSyncModule: the handler ${handler.name} is not a provider of this application; add it to the providers of one of your modules`);
    }
    if (typeof instance.projectsChanged !== 'function') throw new Error(`ControlPlaneSyncModule: the handler ${handler.name} has no projectsChanged method`);
    this.handler = instance;
  }

  async receive(request: IncomingMessage, body: unknown): Promise<void> {
    const caller = await this.verifier.authenticate(request);
    if (caller.clientId !== this.options.controlPlaneClientId) throw new NotTheControlPlane(this.options.controlPlaneClientId);
    const slugs = slugsOf(body);
    if (slugs.length === 0) return;

    const traceparent = request.headers['traceparent'];
    const context: ProjectSyncContext = { clientId: caller.clientId, ...(typeof traceparent === 'string' ? { traceparent } : {}) };
    try {
      await this.coalescer.run(slugs, async () => this.handler.projectsChanged(slugs, context));
    } catch (error) {
      // An Error as a field would be written as `{}`: its class, message and stack, spelled out.
      const err = error instanceof Error ? { type: error.constructor.name, message: error.message, stack: error.stack } : { message: String(error) };
      this.logger.error('project sync handler failed; answering 500 so that the control plane retries', { slugs, err });
      throw new ProjectSyncFailed();
    }
  }
}
