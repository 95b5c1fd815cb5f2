import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { timingSafeEqual } from 'node:crypto';
import { GATEWAY_SETTINGS, GatewaySettings } from './gateway-settings';
import { invalidKey, missingKey } from './gateway-errors';

/** Until virtual keys exist, the master key is the only key: Bearer or x-api-key, as clients send it. */
@Injectable()
export class MasterKeyGuard implements CanActivate {
  private readonly masterKey: Buffer | undefined;

  constructor(@Inject(GATEWAY_SETTINGS) settings: GatewaySettings) {
    this.masterKey = settings.masterKey === undefined ? undefined : Buffer.from(settings.masterKey);
  }

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<Request>();
    const presented = presentedKey(request);
    if (presented === undefined) throw missingKey();
    const given = Buffer.from(presented);
    if (!this.masterKey || given.length !== this.masterKey.length || !timingSafeEqual(given, this.masterKey)) throw invalidKey();
    return true;
  }
}

function presentedKey(request: Request): string | undefined {
  const authorization = request.headers.authorization;
  if (authorization?.startsWith('Bearer ')) return authorization.slice('Bearer '.length).trim() || undefined;
  const apiKey = request.headers['x-api-key'];
  return typeof apiKey === 'string' && apiKey !== '' ? apiKey : undefined;
}
