// The 2026-07-28 revision's per-request envelope: what a client of it sends with every request in
// place of a session, and the headers that mirror the body. Read by the endpoint that serves the
// revision and by the upstream transport that speaks it.

/** The revision's HeaderMismatch: the HTTP headers disagree with the body, or a required one is missing. */
export const HEADER_MISMATCH = -32020;
export const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
export const CLIENT_CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
export const CLIENT_INFO_KEY = 'io.modelcontextprotocol/clientInfo';
export const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';
/** Every key of the envelope starts so: an upstream of the `initialize` versions is sent none of them. */
export const ENVELOPE_META_PREFIX = 'io.modelcontextprotocol/';

/** The body fields the `Mcp-Name` header mirrors, by method: a client sends it, a server checks it. */
export const NAME_SOURCE: Readonly<Record<string, 'name' | 'uri'>> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };
