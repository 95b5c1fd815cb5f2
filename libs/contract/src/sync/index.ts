export { ControlPlaneSyncModule } from './control-plane-sync.module';
export { CONTROL_PLANE_CLIENT_ID, DEFAULT_SYNC_PATH } from './control-plane-sync.options';
export type { ControlPlaneSyncOptions, OnProjectsChanged, ProjectsChangedHandler, ProjectSyncContext } from './control-plane-sync.options';
export { ProjectSyncRequest } from './project-sync-request';
export { matchUnmatchedProjects, reconcileProjects } from './reconcile-projects';
export type { ProjectStore } from './reconcile-projects';
