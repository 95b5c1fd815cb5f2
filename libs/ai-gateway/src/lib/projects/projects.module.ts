import { Module } from '@nestjs/common';
import { LimitsModule } from '../limits/limits.module';
import { ControlPlaneProjects } from './control-plane-projects';
import { AiGatewayProjectSync } from './project-sync';

/** The control plane's projects: looked up for keys, and kept in step when they change (the sync handler is found app-wide). */
@Module({
  imports: [LimitsModule],
  providers: [ControlPlaneProjects, AiGatewayProjectSync],
  exports: [ControlPlaneProjects],
})
export class ProjectsModule {}
