import { Alert } from '@mantine/core';
import { lazy } from 'react';
import type { ShellPage } from '@arbor/ui-shell';
import type { RouteObject } from 'react-router';
import { AdminOnly } from '../common/admin-only';
import { DashboardPage } from '../dashboard/dashboard-page';
import { MyAccessPage } from '../me/my-access-page';

// Administration pages load on demand: the dashboard's first paint does not wait for them.
const ProjectsPage = lazy(() => import('../projects/projects-page').then((module) => ({ default: module.ProjectsPage })));
const ProjectPage = lazy(() => import('../projects/project-page').then((module) => ({ default: module.ProjectPage })));
const UsersPage = lazy(() => import('../users/users-page').then((module) => ({ default: module.UsersPage })));
const PermissionsPage = lazy(() => import('../permissions/permissions-page').then((module) => ({ default: module.PermissionsPage })));
const WorkspacePage = lazy(() => import('../workspace/workspace-page').then((module) => ({ default: module.WorkspacePage })));
const AuditPage = lazy(() => import('../audit/audit-page').then((module) => ({ default: module.AuditPage })));
const SyncPage = lazy(() => import('../sync/sync-page').then((module) => ({ default: module.SyncPage })));

const admin = (element: React.ReactNode) => <AdminOnly>{element}</AdminOnly>;
const isAdmin: ShellPage['visible'] = (me) => me.admin;

/** The control plane's navigation beside the module rail; members do not see the administration pages. */
export const appPages: ShellPage[] = [
  { to: '/', label: 'Dashboard' },
  { to: '/me', label: 'My access' },
  { to: '/projects', label: 'Projects', visible: isAdmin },
  { to: '/users', label: 'Users', visible: isAdmin },
  { to: '/permissions', label: 'Permissions', visible: isAdmin },
  { to: '/workspace', label: 'Workspace', visible: isAdmin },
  { to: '/sync', label: 'Sync deliveries', visible: isAdmin },
  { to: '/audit', label: 'Audit log', visible: isAdmin },
];

export const appRoutes: RouteObject[] = [
  { index: true, element: <DashboardPage /> },
  { path: 'me', element: <MyAccessPage /> },
  { path: 'projects', element: admin(<ProjectsPage />) },
  { path: 'projects/:id', element: admin(<ProjectPage />) },
  { path: 'users', element: admin(<UsersPage />) },
  { path: 'permissions', element: admin(<PermissionsPage />) },
  { path: 'permissions/:userId', element: admin(<PermissionsPage />) },
  { path: 'workspace', element: admin(<WorkspacePage />) },
  { path: 'sync', element: admin(<SyncPage />) },
  { path: 'audit', element: admin(<AuditPage />) },
  { path: '*', element: <Alert title="No such page">There is no page at this address.</Alert> },
];
