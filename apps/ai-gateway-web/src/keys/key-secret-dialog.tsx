import { Code, Text } from '@mantine/core';
import { SecretShownOnceDialog } from '@arbor/ui-shell';

/** The secret of a key just made or rotated: shown this once, with a button that copies it. */
export function KeySecretDialog({ secret, onClose }: { secret: string | null; onClose(): void }) {
  return (
    <SecretShownOnceDialog secret={secret} onClose={onClose} title="Your new key">
      <Text size="sm">
        Use it as an OpenAI API key with the base URL <Code>{`${window.location.origin}/v1`}</Code>. Lost, the key can be rotated.
      </Text>
    </SecretShownOnceDialog>
  );
}
