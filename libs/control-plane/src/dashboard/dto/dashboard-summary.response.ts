import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { DashboardStatus, DashboardSummary, DashboardTile } from '@arbor/contract';

export class DashboardTileResponse implements DashboardTile {
  @ApiProperty({ example: 'Projects' })
  label!: string;

  @ApiProperty({ oneOf: [{ type: 'number' }, { type: 'string' }], example: 2 })
  value!: number | string;

  @ApiProperty({ type: String, nullable: true, example: null })
  unit!: string | null;

  @ApiPropertyOptional({ example: 'http://localhost:8080/projects', description: 'Absolute URL of the page behind the figure.' })
  link?: string;
}

/** The contract's dashboard summary (`@arbor/contract`'s DashboardSummary), the control plane's own. */
export class DashboardSummaryResponse implements DashboardSummary {
  @ApiProperty({ example: 'control-plane' })
  product!: string;

  @ApiProperty({ example: 'Control plane' })
  title!: string;

  @ApiProperty({ enum: ['ok', 'degraded', 'down', 'unknown'] })
  status!: DashboardStatus;

  @ApiProperty({ type: [DashboardTileResponse] })
  tiles!: DashboardTileResponse[];
}
