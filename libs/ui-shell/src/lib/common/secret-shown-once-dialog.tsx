import { Alert, Button, Code, CopyButton, Group, Modal, Stack } from '@mantine/core';
import type { ReactNode } from 'react';

interface SecretShownOnceDialogProps {
  /** The secret just made; null: the dialog is closed. */
  secret: string | null;
  onClose(): void;
  /** e.g. "Your new key". */
  title: string;
  /** How to use it, under the secret. */
  children?: ReactNode;
}

/** A secret the service shows this once (a key just made or rotated), with a button that copies it. */
export function SecretShownOnceDialog({ secret, onClose, title, children }: SecretShownOnceDialogProps) {
  return (
    // No scroll lock: it would inject a <style> element without the page's CSP nonce.
    <Modal opened={secret !== null} onClose={onClose} title={title} centered lockScroll={false} size="lg">
      <Stack>
        <Alert color="yellow" title="Copy it now">
          This is the only time it is shown. Only a hash is kept: lost, it can be replaced, not recovered.
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
        {children}
      </Stack>
    </Modal>
  );
}
