export { ControlPlaneClient } from './control-plane-client';
export { ControlPlaneError, ControlPlaneForbiddenError, ControlPlaneNotFoundError, ControlPlaneUnavailableError } from './control-plane-client.errors';
export type {
  AnswerSource,
  ControlPlaneClientOptions,
  EffectivePermissions,
  GroupedEffectivePermissions,
  PermissionsQuery,
  ProjectRecord,
  RepositoryRecord,
  RepositoryToken,
} from './control-plane-client.types';
