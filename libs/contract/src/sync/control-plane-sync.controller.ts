import type { IncomingMessage } from 'node:http';
import { Body, Controller, HttpCode, Post, Req, Type, UseFilters } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiBody,
  ApiForbiddenResponse,
  ApiInternalServerErrorResponse,
  ApiNoContentResponse,
  ApiOperation,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { ContractErrorFilter } from '../errors/contract-error.filter';
import { ProjectSyncReceiver } from './project-sync-receiver';
import { ProjectSyncRequest } from './project-sync-request';

/**
 * The sync route on the product's chosen path. A class per module instance, because a route's
 * path is decorator metadata: changing it on one shared class would move every receiver's route.
 */
export function controlPlaneSyncController(path: string): Type<unknown> {
  @ApiTags('control-plane sync')
  @ApiBearerAuth()
  @Controller()
  @UseFilters(ContractErrorFilter)
  class ControlPlaneSyncController {
    constructor(private readonly receiver: ProjectSyncReceiver) {}

    @Post(path)
    @HttpCode(204)
    @ApiOperation({
      summary: 'Project sync from the control plane (at least once: the same slugs may arrive again)',
      description: "Called by the control plane's machine client when projects or their repositories change; the product re-reads the named projects.",
    })
    @ApiBody({ type: ProjectSyncRequest })
    @ApiNoContentResponse({ description: 'Applied: the product handled the slugs.' })
    @ApiBadRequestResponse({ description: '`invalid_request`: the body is not `{"slugs": [strings]}`.' })
    @ApiUnauthorizedResponse({ description: "No valid bearer token for this product's issuer and audience." })
    @ApiForbiddenResponse({ description: "A valid token, but not the control plane's machine client." })
    @ApiInternalServerErrorResponse({ description: '`sync_handler_failed`: the handler failed; the control plane retries.' })
    // `unknown`, not the DTO class: a global ValidationPipe that forbids unknown fields must not refuse a body a later control plane extends.
    async receive(@Req() request: IncomingMessage, @Body() body: unknown): Promise<void> {
      await this.receiver.receive(request, body);
    }
  }
  return ControlPlaneSyncController;
}
