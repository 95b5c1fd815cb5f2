import { Alert } from '@mantine/core';
import type { ShellPage } from '@arbor/ui-shell';
import { Navigate, type RouteObject } from 'react-router';
import { KeysPage } from '../keys/keys-page';

// The server serves index.html only for these paths (AI_GATEWAY_UI_PAGES in @arbor/ai-gateway):
// a page added here is added there too, or a reload of it reaches the gateway's API instead.
export const aiGatewayPages: ShellPage[] = [{ to: '/keys', label: 'Keys' }];

export const aiGatewayRoutes: RouteObject[] = [
  { index: true, element: <Navigate to="/keys" replace /> },
  { path: 'keys', element: <KeysPage /> },
  { path: '*', element: <Alert title="No such page">There is no page at this address.</Alert> },
];
