import { notifications } from '@mantine/notifications';
import { ApiRequestError } from '../api/api-client';

/** The API's message for one form field (details.fields), to show beside it. */
export function fieldError(error: unknown, field: string): string | undefined {
  return error instanceof ApiRequestError ? error.fieldErrors[field] : undefined;
}

/** An error that belongs to no field: the API's message, for an alert above the form. */
export function formError(error: unknown, fields: readonly string[]): string | undefined {
  if (!error) return undefined;
  if (error instanceof ApiRequestError && fields.some((field) => error.fieldErrors[field])) return undefined;
  return error instanceof Error ? error.message : String(error);
}

export function notifyFailure(title: string) {
  return (error: Error) => notifications.show({ color: 'red', title, message: error.message });
}
