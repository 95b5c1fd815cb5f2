import { Alert, Code } from '@mantine/core';

/** The empty state of a page only operators reach: which role would let the person in, never a raw 403. */
export function NeedsOperator({ what }: { what: string }) {
  return <NeedsRole title="No MCP gateway operator role on any project" role="mcp-gateway.operator" what={what} />;
}

/** The empty state of a page for anyone who may use the gateway's servers. */
export function NeedsAnyRole({ what }: { what: string }) {
  return <NeedsRole title="No MCP gateway role on any project" role="mcp-gateway.viewer" what={what} />;
}

function NeedsRole({ title, role, what }: { title: string; role: string; what: string }) {
  return (
    <Alert color="gray" title={title}>
      A control-plane administrator can grant you <Code>{role}</Code> on a project (with the sign-in key <Code>mcp-gateway</Code>) to {what}.
    </Alert>
  );
}
