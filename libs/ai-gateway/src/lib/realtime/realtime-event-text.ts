import { isObject, mapList, mapTextContent, type RequestText, withField } from '../endpoints/request-text';
import type { AnswerText } from '../endpoints/answer-text';
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

/** Whether a client message may carry text (its type is one of the text events'), read without parsing it. */
export function mayCarryText(data: Buffer): boolean {
  return TEXT_EVENTS.some((type) => data.includes(type));
}

// Server events that continue a text, and those that repeat one whole once it is done.
const DELTA_EVENTS = new Set(['response.output_text.delta', 'response.output_audio_transcript.delta', 'response.text.delta', 'response.audio_transcript.delta']);
const DONE_EVENTS: Readonly<Record<string, string>> = {
  'response.output_text.done': 'text',
  'response.text.done': 'text',
  'response.output_audio_transcript.done': 'transcript',
  'response.audio_transcript.done': 'transcript',
};
const PART_EVENTS = new Set(['response.content_part.added', 'response.content_part.done']);
const ITEM_EVENTS = new Set(['response.output_item.added', 'response.output_item.done', 'conversation.item.added', 'conversation.item.done', 'conversation.item.retrieved']);

/** A content part's text or audio transcript, whole. */
function mapPart(part: unknown, whole: (text: string) => string): unknown {
  if (!isObject(part)) return part;
  const withText = typeof part['text'] === 'string' ? withField(part, 'text', whole(part['text'])) : part;
  return typeof withText['transcript'] === 'string' ? withField(withText, 'transcript', whole(withText['transcript'])) : withText;
}

function mapOutputItem(item: unknown, whole: (text: string) => string): unknown {
  return isObject(item)
    ? withField(
        item,
        'content',
        mapList(item['content'], (part) => mapPart(part, whole)),
      )
    : item;
}

/**
 * Where a realtime session's server events carry the model's text: the deltas of output text and
 * audio transcripts (a channel for each item's content part), and the whole texts the done events,
 * parts, items and `response.done` repeat. Server events come one a message: there is no whole answer.
 */
export const REALTIME_ANSWER_TEXT: AnswerText = {
  map: (answer) => answer,
  event: (data, delta, whole) => {
    const type = String(data['type']);
    if (DELTA_EVENTS.has(type) && typeof data['delta'] === 'string')
      return withField(data, 'delta', delta(`${String(data['item_id'])}:${String(data['content_index'])}`, data['delta']));
    const field = DONE_EVENTS[type];
    if (field && typeof data[field] === 'string') return withField(data, field, whole(data[field]));
    if (PART_EVENTS.has(type)) return withField(data, 'part', mapPart(data['part'], whole));
    if (ITEM_EVENTS.has(type)) return withField(data, 'item', mapOutputItem(data['item'], whole));
    if (type === 'response.done' && isObject(data['response'])) {
      const response = data['response'];
      return withField(
        data,
        'response',
        withField(
          response,
          'output',
          mapList(response['output'], (item) => mapOutputItem(item, whole)),
        ),
      );
    }
    return data;
  },
};

/** A realtime session as the guardrails see it: its client events are requests, its server events answers. */
export const REALTIME_CLIENT_EVENTS: TextFamily = { description: 'realtime sessions', requestText: REALTIME_EVENT_TEXT, answerText: REALTIME_ANSWER_TEXT };
