import { Alert, Button, Code, CopyButton, Group, Modal, Stack, Text } from '@mantine/core';

/** The secret of a key just made or rotated: shown this once, with a button that copies it. */
export function KeySecretDialog({ secret, onClose }: { secret: string | null; onClose(): void }) {
  return (
    // No scroll lock: it would inject a <style> element without the page's CSP nonce.
    <Modal opened={secret !== null} onClose={onClose} title="Your new key" centered lockScroll={false} size="lg">
      <Stack>
        <Alert color="yellow" title="Copy it now">
          This is the only time the gateway shows the key. It keeps only a hash: lost, the key can be rotated, not recovered.
        </Alert>
        <Code block data-testid="new-key-secret">
          {secret}
        </Code>
        <Group justify="space-between">
          <CopyButton value={secret ?? ''}>{({ copied, copy }) => <Button onClick={copy}>{copied ? 'Copied' : 'Copy key'}</Button>}</CopyButton>
          <Button variant="default" onClick={onClose}>
            Done
          </Button>
        </Group>
        <Text size="sm">
          Use it as an OpenAI API key with the base URL <Code>{`${window.location.origin}/v1`}</Code>.
        </Text>
      </Stack>
    </Modal>
  );
}
