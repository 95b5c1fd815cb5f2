import { Injectable, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { UnknownElementException } from '@nestjs/core/errors/exceptions/unknown-element.exception.js';
import { ADMIN_RESOLVER, AdminResolver } from './principal/admin-resolver';

/**
 * The optional hooks an app provides. Looked up across the whole app once at start (a global
 * module cannot see its importer's providers through injection), never per request.
 */
@Injectable()
export class AuthExtensions implements OnModuleInit {
  adminResolver?: AdminResolver;

  constructor(private readonly moduleRef: ModuleRef) {}

  onModuleInit(): void {
    this.adminResolver = this.optional<AdminResolver>(ADMIN_RESOLVER);
  }

  private optional<T>(token: symbol): T | undefined {
    try {
      return this.moduleRef.get<T>(token, { strict: false });
    } catch (error) {
      if (error instanceof UnknownElementException) return undefined;
      throw error;
    }
  }
}
