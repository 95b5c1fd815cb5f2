import { Alert } from '@mantine/core';
import type { ShellPage } from '@arbor/ui-shell';
import { lazy } from 'react';
import { Navigate, type RouteObject } from 'react-router';
import { ConnectionsPage } from '../connections/connections-page';
import { KeysPage } from '../keys/keys-page';
import { ServersPage } from '../servers/servers-page';
import { UpstreamsPage } from '../upstreams/upstreams-page';

// The form library (rjsf) loads with the Tools page and the charts (recharts) with the Calls page: the first visit waits for neither.
const ToolsPage = lazy(() => import('../tools/tools-page').then((module) => ({ default: module.ToolsPage })));
const CallsPage = lazy(() => import('../calls/calls-page').then((module) => ({ default: module.CallsPage })));
const AgentsPage = lazy(() => import('../agents/agents-page').then((module) => ({ default: module.AgentsPage })));

// The server serves index.html only for these paths (MCP_GATEWAY_UI_PAGES in @arbor/mcp-gateway):
// a page added here is added there too, or a reload of it reaches the gateway's API instead.
export const mcpGatewayPages: ShellPage[] = [
  { to: '/virtual-servers', label: 'Virtual servers' },
  { to: '/tools', label: 'Tools' },
  { to: '/upstreams', label: 'Upstreams' },
  { to: '/keys', label: 'API keys' },
  { to: '/calls', label: 'Tool calls' },
  { to: '/agents', label: 'Agents' },
  { to: '/connections', label: 'My connections' },
];

export const mcpGatewayRoutes: RouteObject[] = [
  { index: true, element: <Navigate to="/virtual-servers" replace /> },
  // Not /servers: /servers/{id}/mcp is the MCP endpoint of a virtual server.
  { path: 'virtual-servers', element: <ServersPage /> },
  { path: 'tools', element: <ToolsPage /> },
  { path: 'upstreams', element: <UpstreamsPage /> },
  { path: 'keys', element: <KeysPage /> },
  { path: 'calls', element: <CallsPage /> },
  // /agents alone is the page; /agents/{name}/… are the agents' A2A addresses.
  { path: 'agents', element: <AgentsPage /> },
  { path: 'connections', element: <ConnectionsPage /> },
  { path: '*', element: <Alert title="No such page">There is no page at this address.</Alert> },
];
