import { Button, Group, Modal, Text, type ButtonProps } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import type { ReactNode } from 'react';

interface ConfirmButtonProps extends ButtonProps {
  /** What the button says, and the confirming button too. */
  children: ReactNode;
  title: string;
  message: ReactNode;
  onConfirm(): void;
  loading?: boolean;
}

/** A destructive action: nothing happens until the person confirms in a dialog. */
export function ConfirmButton({ children, title, message, onConfirm, loading, ...button }: ConfirmButtonProps) {
  const [opened, { open, close }] = useDisclosure(false);
  return (
    <>
      <Button color="red" variant="light" size="xs" {...button} onClick={open}>
        {children}
      </Button>
      {/* No scroll lock: it would inject a <style> element without the page's CSP nonce. */}
      <Modal opened={opened} onClose={close} title={title} centered lockScroll={false}>
        <Text mb="md">{message}</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={close}>
            Cancel
          </Button>
          <Button
            color="red"
            loading={loading}
            onClick={() => {
              onConfirm();
              close();
            }}
          >
            {children}
          </Button>
        </Group>
      </Modal>
    </>
  );
}
