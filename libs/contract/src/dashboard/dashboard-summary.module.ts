import type { IncomingMessage } from 'node:http';
import { Controller, DynamicModule, Get, Inject, InjectionToken, Module, ModuleMetadata, OptionalFactoryDependency, Req, Type, UseFilters } from '@nestjs/common';
import type { TokenVerifier, VerifiedCaller } from '../identity/token-verifier';
import { ControlPlaneClient } from '../client/control-plane-client';
import { ControlPlaneNotFoundError } from '../client/control-plane-client.errors';
import type { GroupedEffectivePermissions } from '../client/control-plane-client.types';
import { ContractErrorFilter } from '../errors/contract-error.filter';
import { ContractHttpError } from '../errors/contract-http-error';
import { CALLER_VERIFIER } from '../nest/control-plane.options';
import { can, keysForProject, rolesIn } from '../permissions/permission-keys';
import type { DashboardStatus, DashboardSummary, DashboardTile } from './dashboard-summary';

export const DEFAULT_DASHBOARD_PATH = '/api/v1/dashboard/summary';

/** What the summary function learns about the signed-in person. */
export interface DashboardViewer {
  caller: VerifiedCaller;
  /** Their grouped permissions (source `unavailable` with empty sets when the control plane cannot be reached). */
  permissions: GroupedEffectivePermissions;
  /** Slugs of the projects where the person holds the product's sign-in key (and `role`, when given). */
  projectsWith(role?: string): string[];
  /**
   * The projects whose figures the person may see: where they hold the sign-in key and at least one
   * role of the product; `'all'` when that holds workspace-wide (every project, also those not in their grants).
   */
  visibleProjects(): 'all' | string[];
}

/** Your figures for this person: decide what they may see from `viewer.projectsWith()`. */
export type DashboardSummaryFunction = (
  viewer: DashboardViewer,
) => Promise<{ status: DashboardStatus; tiles: DashboardTile[] }> | { status: DashboardStatus; tiles: DashboardTile[] };

export interface DashboardSummaryOptions {
  /** Your product key (`ai-gateway`). */
  product: string;
  title: string;
  /** Default `/api/v1/dashboard/summary`. */
  path?: string;
  summary: DashboardSummaryFunction;
}

/**
 * The same, with the summary made by your own providers (your data source, your services):
 * `useFactory` receives `inject`'s providers, from `imports` or global modules.
 */
export interface DashboardSummaryAsyncOptions extends Omit<DashboardSummaryOptions, 'summary'> {
  imports?: ModuleMetadata['imports'];
  inject?: (InjectionToken | OptionalFactoryDependency)[];
  useFactory(...dependencies: never[]): DashboardSummaryFunction | Promise<DashboardSummaryFunction>;
}

const DASHBOARD_OPTIONS = Symbol('CONTROL_PLANE_DASHBOARD_OPTIONS');

/**
 * Serves the dashboard summary for the signed-in person (persons only; a machine gets 403).
 * Needs ControlPlaneModule (for the token verifier and the client).
 */
@Module({})
export class DashboardSummaryModule {
  static forRoot(options: DashboardSummaryOptions): DynamicModule {
    if (typeof options.summary !== 'function') throw new Error('DashboardSummaryModule.forRoot: summary must be a function');
    return {
      module: DashboardSummaryModule,
      controllers: [dashboardController(options.path ?? DEFAULT_DASHBOARD_PATH)],
      providers: [{ provide: DASHBOARD_OPTIONS, useValue: options }],
    };
  }

  static forRootAsync(options: DashboardSummaryAsyncOptions): DynamicModule {
    if (typeof options.useFactory !== 'function') throw new Error('DashboardSummaryModule.forRootAsync: useFactory must be a function');
    const { product, title, path, useFactory } = options;
    return {
      module: DashboardSummaryModule,
      imports: options.imports ?? [],
      controllers: [dashboardController(path ?? DEFAULT_DASHBOARD_PATH)],
      providers: [
        {
          provide: DASHBOARD_OPTIONS,
          useFactory: async (...dependencies: never[]): Promise<DashboardSummaryOptions> => {
            const summary = await useFactory(...dependencies);
            if (typeof summary !== 'function') throw new Error('DashboardSummaryModule.forRootAsync: useFactory must return the summary function');
            return { product, title, summary, ...(path === undefined ? {} : { path }) };
          },
          inject: options.inject ?? [],
        },
      ],
    };
  }
}

function dashboardController(path: string): Type<unknown> {
  @Controller()
  @UseFilters(ContractErrorFilter)
  class DashboardSummaryController {
    constructor(
      @Inject(DASHBOARD_OPTIONS) private readonly options: DashboardSummaryOptions,
      @Inject(CALLER_VERIFIER) private readonly verifier: TokenVerifier,
      @Inject(ControlPlaneClient) private readonly client: ControlPlaneClient,
    ) {}

    @Get(path)
    async summary(@Req() request: IncomingMessage): Promise<DashboardSummary> {
      const caller = await this.verifier.authenticate(request);
      if (caller.kind !== 'person') throw new ContractHttpError(403, 'forbidden', "The dashboard summary is served for a signed-in person's token only.");
      const { product, title } = this.options;
      let permissions: GroupedEffectivePermissions;
      try {
        permissions = await this.client.groupedPermissions({ subject: caller.subject });
      } catch (error) {
        // A person the control plane does not know (never signed in) has no permissions; anything else: it could not say.
        permissions = { user_id: '', workspace: [], projects: {}, source: error instanceof ControlPlaneNotFoundError ? 'control-plane' : 'unavailable' };
      }
      const projectsWith = (role?: string) => Object.keys(permissions.projects).filter((slug) => can(keysForProject(permissions, slug), product, role));
      const seesAny = (keys: string[]) => can(keys, product) && rolesIn(keys, product).length > 0;
      const visibleProjects = (): 'all' | string[] =>
        seesAny(permissions.workspace) ? 'all' : Object.keys(permissions.projects).filter((slug) => seesAny(keysForProject(permissions, slug)));
      const { status, tiles } = await this.options.summary({ caller, permissions, projectsWith, visibleProjects });
      return { product, title, status, tiles };
    }
  }
  return DashboardSummaryController;
}
