import { DynamicModule, Module } from '@nestjs/common';
import { AUTH_OPTIONS, AuthOptions, validateAuthOptions } from './auth-options';
import { AuthExtensions } from './auth-extensions';
import { BearerTokenVerifier } from './jwt/bearer-token-verifier';

/**
 * Bearer-token authentication for a whole app: import `AuthModule.forRoot(...)` once in the root
 * module, then guard routes with @Authenticated(), @MachineOrAdmin() or @AdminOnly(). Product permissions are
 * @arbor/contract's @RequirePermission.
 * Nothing reaches the identity provider until the first token arrives.
 */
@Module({})
export class AuthModule {
  static forRoot(options: AuthOptions): DynamicModule {
    return {
      module: AuthModule,
      global: true,
      providers: [{ provide: AUTH_OPTIONS, useValue: validateAuthOptions(options) }, AuthExtensions, BearerTokenVerifier],
      exports: [AUTH_OPTIONS, AuthExtensions, BearerTokenVerifier],
    };
  }
}
