import { isObject, mapList, mapTextContent, type RequestText, withField } from '../endpoints/request-text';
import type { TextFamily } from '../guardrails/guardrails';

const TEXT_PARTS = new Set(['input_text', 'text', 'output_text']);
// The client events that carry text; any other (audio appends, megabytes of them) is not parsed.
const TEXT_EVENTS = ['"conversation.item.create"', '"response.create"', '"session.update"'];

/** A conversation item's text: its content's text parts, a function call output. */
function mapItem(item: unknown, replace: (text: string) => string): unknown {
  if (!isObject(item)) return item;
  const withContent = withField(item, 'content', mapTextContent(item['content'], replace, TEXT_PARTS));
  return typeof withContent['output'] === 'string' ? withField(withContent, 'output', replace(withContent['output'])) : withContent;
}

/**
 * Where a realtime client event carries text: a created item's text parts and tool output
 * (`conversation.item.create`), a response's instructions and input items (`response.create`), the
 * session's instructions (`session.update`).
 */
export const REALTIME_EVENT_TEXT: RequestText = {
  map: (event, replace) => {
    switch (event['type']) {
      case 'conversation.item.create':
        return withField(event, 'item', mapItem(event['item'], replace));
      case 'response.create': {
        const response = event['response'];
        if (!isObject(response)) return event;
        const instructed = typeof response['instructions'] === 'string' ? withField(response, 'instructions', replace(response['instructions'])) : response;
        return withField(
          event,
          'response',
          withField(
            instructed,
            'input',
            mapList(instructed['input'], (item) => mapItem(item, replace)),
          ),
        );
      }
      case 'session.update': {
        const session = event['session'];
        if (!isObject(session) || typeof session['instructions'] !== 'string') return event;
        return withField(event, 'session', withField(session, 'instructions', replace(session['instructions'])));
      }
      default:
        return event;
    }
  },
};

export const REALTIME_CLIENT_EVENTS: TextFamily = { description: 'realtime sessions', requestText: REALTIME_EVENT_TEXT };

/** Whether a client message may carry text (its type is one of the text events'), read without parsing it. */
export function mayCarryText(data: Buffer): boolean {
  return TEXT_EVENTS.some((type) => data.includes(type));
}
