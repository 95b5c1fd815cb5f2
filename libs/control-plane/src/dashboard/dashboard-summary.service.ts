import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Principal } from '@arbor/auth';
import { ControlPlaneConfig } from '@arbor/config';
import { DataSource } from 'typeorm';
import { PersonOnly } from '../me/me.exception';
import { EffectivePermissionsService } from '../permissions/effective-permissions.service';
import { UserDirectory } from '../users/user-directory.service';
import { DashboardSummaryResponse, DashboardTileResponse } from './dto/dashboard-summary.response';

/**
 * The control plane's card on the suite dashboard. Administrators see projects, users and the
 * sync deliveries that products keep failing; a member sees the projects they belong to.
 */
@Injectable()
export class DashboardSummaryService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly directory: UserDirectory,
    private readonly effectivePermissions: EffectivePermissionsService,
    private readonly config: ControlPlaneConfig,
  ) {}

  async summary(principal: Principal): Promise<DashboardSummaryResponse> {
    if (principal.kind !== 'person') throw new PersonOnly();
    const user = await this.directory.forPrincipal(principal);
    const link = (page: string) => new URL(page, this.config.CP_PUBLIC_URL).toString();
    const admin = principal.isAdmin || (user.isAdmin && !user.disabled);
    if (!admin) {
      const { projects } = await this.effectivePermissions.grouped(user.id);
      return this.card('ok', [{ label: 'Your projects', value: Object.keys(projects).length, unit: 'projects', link: link('/me') }]);
    }
    const [counts] = (await this.dataSource.query(
      `select (select count(*) from projects)::int as projects,
              (select count(*) from users where not disabled)::int as users,
              (select count(*) from sync_deliveries where state = 'pending' and attempts > 0)::int as failing`,
    )) as { projects: number; users: number; failing: number }[];
    return this.card(counts.failing > 0 ? 'degraded' : 'ok', [
      { label: 'Projects', value: counts.projects, unit: 'projects', link: link('/projects') },
      { label: 'Active users', value: counts.users, unit: 'users', link: link('/users') },
      { label: 'Failing sync deliveries', value: counts.failing, unit: 'deliveries', link: link('/sync') },
    ]);
  }

  private card(status: DashboardSummaryResponse['status'], tiles: DashboardTileResponse[]): DashboardSummaryResponse {
    return { product: 'control-plane', title: 'Control plane', status, tiles };
  }
}
