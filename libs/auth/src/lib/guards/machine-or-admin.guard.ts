import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { forbidden, requiredPrincipal } from './forbidden';

/** Machine clients (client credentials) and administrators; a plain person gets 403. */
@Injectable()
export class MachineOrAdminGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const principal = requiredPrincipal(context);
    if (principal.kind === 'machine' || principal.isAdmin) return true;
    throw forbidden('only machine clients and administrators may call this endpoint');
  }
}
