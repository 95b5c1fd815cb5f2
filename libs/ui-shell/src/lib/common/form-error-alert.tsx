import { Alert } from '@mantine/core';
import { formError } from './errors';

/** Below a form: the API's refusal when it names none of the form's fields (those show beside their input). */
export function FormErrorAlert({ error, fields }: { error: unknown; fields: readonly string[] }) {
  const message = formError(error, fields);
  return message ? (
    <Alert color="red" mt="xs">
      {message}
    </Alert>
  ) : null;
}
