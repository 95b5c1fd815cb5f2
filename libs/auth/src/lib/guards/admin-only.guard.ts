import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { forbidden, requiredPrincipal } from './forbidden';

/** Administrators only (realm role or granted in the control plane); machines and people get 403. */
@Injectable()
export class AdminOnlyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (requiredPrincipal(context).isAdmin) return true;
    throw forbidden('only administrators may call this endpoint');
  }
}
