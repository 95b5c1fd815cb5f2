import { Alert, Code } from '@mantine/core';

/** The empty state of a page viewers read and operators change, for a person with neither role: never a raw 403. */
export function NeedsRole({ what }: { what: string }) {
  return (
    <Alert color="gray" title="No MCP gateway role on any project">
      A control-plane administrator can grant you <Code>mcp-gateway.viewer</Code> on a project to {what}, or <Code>mcp-gateway.operator</Code> to change them (with the sign-in key{' '}
      <Code>mcp-gateway</Code>).
    </Alert>
  );
}

/** The empty state of a page for anyone who may use the gateway's servers. */
export function NeedsAnyRole({ what }: { what: string }) {
  return <RoleAlert title="No MCP gateway role on any project" role="mcp-gateway.viewer" what={what} />;
}

function RoleAlert({ title, role, what }: { title: string; role: string; what: string }) {
  return (
    <Alert color="gray" title={title}>
      A control-plane administrator can grant you <Code>{role}</Code> on a project (with the sign-in key <Code>mcp-gateway</Code>) to {what}.
    </Alert>
  );
}
