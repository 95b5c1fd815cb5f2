import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { GATEWAY_SETTINGS, GatewaySettings } from './gateway-settings';
import { invalidKey, missingKey, projectDeleted } from './gateway-errors';
import { GatewayCaller, KeyVerifier } from './keys/key-verifier';
import { presentedCredential } from '@arbor/contract';

/** The caller a guard let through, on the request. */
const CALLER = Symbol('arbor.gateway-caller');
type WithCaller = IncomingMessage & { [CALLER]?: GatewayCaller };

export function gatewayCaller(request: IncomingMessage): GatewayCaller {
  const caller = (request as WithCaller)[CALLER];
  if (!caller) throw new Error('gatewayCaller() on a route without GatewayKeyGuard');
  return caller;
}

/** Clients send Bearer or x-api-key (OpenAI's and Anthropic's SDKs). */
export function presentedKey(request: IncomingMessage): string | undefined {
  return presentedCredential(request, { apiKeyHeader: 'x-api-key' });
}

@Injectable()
export class MasterKeyCheck {
  private readonly masterKey: Buffer | undefined;

  constructor(@Inject(GATEWAY_SETTINGS) settings: GatewaySettings) {
    this.masterKey = settings.masterKey === undefined ? undefined : Buffer.from(settings.masterKey);
  }

  isMasterKey(presented: string): boolean {
    // The length is no secret (every comparison reveals it); virtual keys differ in length from
    // most master keys, so they skip the copy and the constant-time comparison.
    if (!this.masterKey || Buffer.byteLength(presented) !== this.masterKey.length) return false;
    return timingSafeEqual(Buffer.from(presented), this.masterKey);
  }
}

/** Who calls an OpenAI-format route: the master key or a valid virtual key; refusals are OpenAI-format 401s. */
@Injectable()
export class GatewayAuthentication {
  constructor(
    private readonly master: MasterKeyCheck,
    private readonly keys: KeyVerifier,
  ) {}

  caller(request: IncomingMessage): Promise<GatewayCaller> {
    return this.callerFor(presentedKey(request));
  }

  /** The caller of a key presented some other way (a browser's WebSocket subprotocol). */
  async callerFor(presented: string | undefined): Promise<GatewayCaller> {
    if (presented === undefined) throw missingKey();
    if (this.master.isMasterKey(presented)) return { kind: 'master' };
    const key = await this.keys.verify(presented);
    if (!key) throw invalidKey();
    if (key.projectDeleted) throw projectDeleted(key.project);
    return { kind: 'virtual', key };
  }
}

/** OpenAI-format routes served through Nest (models): the caller on the request, for gatewayCaller(). */
@Injectable()
export class GatewayKeyGuard implements CanActivate {
  constructor(private readonly authentication: GatewayAuthentication) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<WithCaller>();
    request[CALLER] = await this.authentication.caller(request);
    return true;
  }
}
