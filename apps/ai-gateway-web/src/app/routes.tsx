import { Alert } from '@mantine/core';
import type { ShellPage } from '@arbor/ui-shell';
import { lazy } from 'react';
import { Navigate, type RouteObject } from 'react-router';
import { CallLogPage } from '../calls/call-log-page';
import { KeysPage } from '../keys/keys-page';
import { ModelsPage } from '../models/models-page';

// The charts (recharts) load with the Usage page: the first visit does not wait for them.
const UsagePage = lazy(() => import('../usage/usage-page').then((module) => ({ default: module.UsagePage })));
// So does the OpenAI SDK with the Playground.
const PlaygroundPage = lazy(() => import('../playground/playground-page').then((module) => ({ default: module.PlaygroundPage })));

// The server serves index.html only for these paths (AI_GATEWAY_UI_PAGES in @arbor/ai-gateway):
// a page added here is added there too, or a reload of it reaches the gateway's API instead.
export const aiGatewayPages: ShellPage[] = [
  { to: '/keys', label: 'Keys' },
  { to: '/usage', label: 'Usage' },
  { to: '/catalogue', label: 'Models' },
  { to: '/calls', label: 'Call log' },
  { to: '/playground', label: 'Playground' },
];

export const aiGatewayRoutes: RouteObject[] = [
  { index: true, element: <Navigate to="/keys" replace /> },
  { path: 'keys', element: <KeysPage /> },
  { path: 'usage', element: <UsagePage /> },
  // Not /models: that path is LiteLLM's model list, an API path.
  { path: 'catalogue', element: <ModelsPage /> },
  { path: 'calls', element: <CallLogPage /> },
  { path: 'playground', element: <PlaygroundPage /> },
  { path: '*', element: <Alert title="No such page">There is no page at this address.</Alert> },
];
