import { Alert, Code, Stack, Text } from '@mantine/core';
import Form from '@rjsf/mantine';
import type { RJSFSchema } from '@rjsf/utils';
import type { McpTool, ToolResult } from '../api/mcp-gateway-api';
import { CspSafeValidator } from './schema-validator';
import { useCallTool } from './tools-queries';

const validator = new CspSafeValidator();

/**
 * A tool's arguments as a form generated from its input schema (rjsf's Mantine theme), its answer
 * below. Uncontrolled: rjsf keeps what is typed, and a re-render from outside cannot clear the
 * errors its check on submit shows.
 */
export function ToolTryForm({ server, tool }: { server: string; tool: McpTool }) {
  const call = useCallTool(server, tool.name);
  return (
    <Stack>
      <Form
        schema={tool.inputSchema as RJSFSchema}
        validator={validator}
        idPrefix={`try-${tool.name}`}
        showErrorList={false}
        // The schema's own checks, shown at each field, instead of the browser's bubbles.
        noHtml5Validate
        onSubmit={(event) => call.mutate((event.formData ?? {}) as Record<string, unknown>)}
        uiSchema={{ 'ui:submitButtonOptions': { submitText: `Call ${tool.name}`, props: { disabled: call.isPending } } }}
      />
      {call.isError && (
        <Alert color="red" title="The call failed">
          {call.error.message}
        </Alert>
      )}
      {call.data && <ToolAnswer result={call.data} />}
    </Stack>
  );
}

function ToolAnswer({ result }: { result: ToolResult }) {
  return (
    <Stack gap="xs" aria-label="Tool answer" role="region">
      {result.isError ? (
        <Alert color="red" title="The tool answered with an error" />
      ) : (
        <Text fw={600} size="sm">
          Answer
        </Text>
      )}
      {result.content.map((block, index) =>
        block.type === 'text' ? (
          <Code block key={index} data-testid="tool-answer-text">
            {String(block['text'])}
          </Code>
        ) : (
          <Code block key={index}>
            {JSON.stringify(block, null, 2)}
          </Code>
        ),
      )}
      {result.structuredContent && <Code block>{JSON.stringify(result.structuredContent, null, 2)}</Code>}
    </Stack>
  );
}
