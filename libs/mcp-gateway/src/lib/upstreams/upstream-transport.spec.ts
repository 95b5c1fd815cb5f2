import { DiscoverFirstUpstreamTransport } from './discover-first-upstream';
import { SseUpstreamTransport } from './sse-upstream';
import { StreamableHttpUpstreamTransport } from './streamable-http-upstream';
import { callRoute, callsDirectly, type UpstreamTransport } from './upstream-transport';

// How a call goes up, by what each kind of upstream transport declares: built, never connected.

const url = new URL('http://upstream.example/mcp');
const KINDS: Record<UpstreamTransport['kind'], UpstreamTransport> = {
  'streamable-http': new StreamableHttpUpstreamTransport(url),
  sse: new SseUpstreamTransport(url, {}, false),
  'discover-first': new DiscoverFirstUpstreamTransport(url, {}, false, { capabilities: {} }),
};

const plain = { progress: false, ownStream: false, callHeaders: false };

describe('upstream transports, by what they declare', () => {
  it.each<[string, UpstreamTransport['kind'], Partial<typeof plain>, ReturnType<typeof callRoute>]>([
    ['a plain call skips the SDK Protocol on Streamable HTTP', 'streamable-http', {}, 'direct'],
    ['a call with progress takes the SDK client on Streamable HTTP', 'streamable-http', { progress: true }, 'protocol'],
    ['a stateless caller gets its call’s own log messages on Streamable HTTP', 'streamable-http', { ownStream: true }, 'direct'],
    ['the repository token goes on a Streamable HTTP call of its own', 'streamable-http', { callHeaders: true }, 'direct'],
    ['the repository token is refused with progress', 'streamable-http', { callHeaders: true, progress: true }, 'refused'],
    ['a plain call takes the SDK client on a discover-first upstream', 'discover-first', {}, 'protocol'],
    ['a caller naming its log level gets its call’s own stream on a discover-first upstream', 'discover-first', { ownStream: true }, 'direct'],
    ['the repository token is refused on a discover-first upstream', 'discover-first', { callHeaders: true }, 'refused'],
    ['every call takes the SDK client on SSE', 'sse', { ownStream: true }, 'protocol'],
    ['the repository token is refused on SSE', 'sse', { callHeaders: true }, 'refused'],
  ])('%s', (_case, kind, call, route) => {
    expect(callRoute(KINDS[kind].traits, { ...plain, ...call })).toBe(route);
  });

  it.each<[UpstreamTransport['kind'], { direct: boolean; envelope: boolean; logsPerCall: boolean; sessionIsStream: boolean; version?: string }]>([
    ['streamable-http', { direct: true, envelope: false, logsPerCall: true, sessionIsStream: false }],
    ['sse', { direct: false, envelope: false, logsPerCall: false, sessionIsStream: true }],
    ['discover-first', { direct: true, envelope: true, logsPerCall: false, sessionIsStream: false, version: '2026-07-28' }],
  ])('a %s transport says what it can do, and has a direct call exactly when it says so', (kind, expected) => {
    const transport = KINDS[kind];
    expect(transport.kind).toBe(kind);
    expect({
      direct: callsDirectly(transport),
      envelope: transport.traits.takesEnvelope,
      logsPerCall: transport.traits.logsPerCall,
      sessionIsStream: transport.traits.sessionIsStream,
      ...(transport.discoveredVersion ? { version: transport.discoveredVersion } : {}),
    }).toEqual(expected);
    expect(typeof transport.call === 'function').toBe(transport.traits.ownCallStreams);
  });
});
