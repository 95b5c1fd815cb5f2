import { ErrorCode, McpError, type Prompt, type Resource, type ResourceTemplate, type ServerCapabilities, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { UpstreamSelection } from '../registry/server-registry';
import type { UpstreamOffer } from '../upstreams/upstream-pool';
import { Catalogue } from './catalogue';
import type { CatalogueAccess, CatalogueCaller, CatalogueItemRef } from './catalogue-access';
import { CatalogueView, type PrefixRule } from './catalogue-view';
import type { ToolCallAudit, ToolCallEvent } from '../audit/tool-call-audit';
import type { ToolRateLimits } from '../rate-limits/tool-rate-limits';

// The catalogue every era reads, built from selections and offers as data: no upstream, no server.

const tool = (name: string): Tool => ({ name, inputSchema: { type: 'object' } });
const prompt = (name: string): Prompt => ({ name });
const resource = (uri: string): Resource => ({ uri, name: uri });
const template = (uriTemplate: string): ResourceTemplate => ({ uriTemplate, name: uriTemplate });

function offer(items: { tools?: string[]; prompts?: string[]; resources?: string[]; templates?: string[]; capabilities?: ServerCapabilities }): UpstreamOffer {
  return {
    capabilities: items.capabilities ?? { tools: {}, prompts: {}, resources: {}, completions: {} },
    tools: (items.tools ?? []).map(tool),
    prompts: (items.prompts ?? []).map(prompt),
    resources: (items.resources ?? []).map(resource),
    resourceTemplates: (items.templates ?? []).map(template),
  };
}

const OFFERS = new Map<string, UpstreamOffer>([
  ['north', offer({ tools: ['echo', 'add', 'north-only'], prompts: ['greet'], resources: ['file:///readme'], templates: ['weather://{city}'] })],
  ['south', offer({ tools: ['echo', 'south-only'], prompts: ['greet', 'farewell'], resources: ['file:///readme', 'file:///south'] })],
]);

const all = (upstream: string): UpstreamSelection => ({ upstream, tools: '*', resources: '*', prompts: '*' });

function catalogue(selections: UpstreamSelection[], rule: PrefixRule = 'on-collision', pageSize = 100, access?: CatalogueAccess): Catalogue {
  const caller: CatalogueCaller = { serverId: rule === 'always' ? null : 'alpha', grant: { principal: 'alice', servers: ['alpha'] }, sessions: false };
  return new Catalogue(new CatalogueView(selections, OFFERS, rule, false), pageSize, access && { caller, policy: access });
}

/** The McpError a lookup throws, as code and message. */
function refusal(lookup: () => unknown): { code: number; message: string } | undefined {
  try {
    lookup();
    return undefined;
  } catch (error) {
    if (!(error instanceof McpError)) throw error;
    return { code: error.code, message: error.message };
  }
}

describe('the catalogue of a virtual server', () => {
  it.each<[string, UpstreamSelection[], PrefixRule, string[]]>([
    ['one upstream keeps its names', [all('north')], 'on-collision', ['echo', 'add', 'north-only']],
    ['two upstreams prefix only the names they share', [all('north'), all('south')], 'on-collision', ['north__echo', 'add', 'north-only', 'south__echo', 'south-only']],
    ['/mcp prefixes every name', [all('north'), all('south')], 'always', ['north__echo', 'north__add', 'north__north-only', 'south__echo', 'south__south-only']],
    [
      'a selection shows only the tools it names',
      [
        { ...all('north'), tools: ['add'] },
        { ...all('south'), tools: ['echo'] },
      ],
      'on-collision',
      ['add', 'echo'],
    ],
    ['an upstream the pool does not know shows nothing', [all('north'), all('west')], 'on-collision', ['echo', 'add', 'north-only']],
  ])('lists tools: %s', (_case, selections, rule, names) => {
    expect(
      catalogue(selections, rule)
        .listTools(undefined)
        .tools.map((t) => t.name),
    ).toEqual(names);
  });

  it.each<[string, UpstreamSelection[], PrefixRule, string[]]>([
    ['shared prompt names are prefixed', [all('north'), all('south')], 'on-collision', ['north__greet', 'south__greet', 'farewell']],
    ['one upstream keeps its prompt names', [all('south')], 'on-collision', ['greet', 'farewell']],
  ])('lists prompts: %s', (_case, selections, rule, names) => {
    expect(
      catalogue(selections, rule)
        .listPrompts(undefined)
        .prompts.map((p) => p.name),
    ).toEqual(names);
  });

  it('gives shared resource URIs and templates a gateway URI of their own, on collision or always', () => {
    expect(
      catalogue([all('north'), all('south')])
        .listResources(undefined)
        .resources.map((r) => r.uri),
    ).toEqual(['mcpgw://north/file:///readme', 'mcpgw://south/file:///readme', 'file:///south']);
    expect(
      catalogue([all('north')], 'always')
        .listResourceTemplates(undefined)
        .resourceTemplates.map((t) => t.uriTemplate),
    ).toEqual(['mcpgw://north/weather://{city}']);
  });

  it.each<[string, UpstreamSelection[], PrefixRule, string, { upstream: string; original: string } | string]>([
    ['a listed name', [all('north'), all('south')], 'on-collision', 'add', { upstream: 'north', original: 'add' }],
    ['a prefixed name', [all('north'), all('south')], 'on-collision', 'south__echo', { upstream: 'south', original: 'echo' }],
    ['an unlisted name on an upstream whose every tool is selected', [all('north'), all('south')], 'on-collision', 'south__hidden', { upstream: 'south', original: 'hidden' }],
    ['a bare unlisted name on a server of one open upstream', [all('north')], 'on-collision', 'hidden', { upstream: 'north', original: 'hidden' }],
    ['a bare shared name (it was prefixed)', [all('north'), all('south')], 'on-collision', 'echo', 'Tool echo not found'],
    ['a tool the selection leaves out', [{ ...all('north'), tools: ['add'] }], 'on-collision', 'echo', 'Tool echo not found'],
    ['an unlisted name behind a closed selection', [{ ...all('north'), tools: ['add'] }], 'on-collision', 'north__hidden', 'Tool north__hidden not found'],
    ['a bare name on /mcp', [all('north')], 'always', 'add', 'Tool add not found'],
  ])('finds where a tools/call goes: %s', (_case, selections, rule, name, expected) => {
    const book = catalogue(selections, rule);
    if (typeof expected === 'string')
      expect(refusal(() => book.tool(name))).toEqual({ code: ErrorCode.InvalidParams, message: `MCP error ${ErrorCode.InvalidParams}: ${expected}` });
    else expect(book.tool(name)).toMatchObject(expected);
  });

  it.each<[string, string, number, { upstream: string; original: string } | undefined]>([
    ['the name shown', 'mcpgw://south/file:///readme', -32002, { upstream: 'south', original: 'file:///readme' }],
    ['a name only one upstream has', 'file:///south', -32002, { upstream: 'south', original: 'file:///south' }],
    ['a URI matching a template', 'weather://paris', -32002, { upstream: 'north', original: 'weather://paris' }],
    ['an unknown URI, in the older versions', 'mcpgw://east/x', -32002, undefined],
    ['an unknown URI, in the discover-first revision', 'mcpgw://east/x', ErrorCode.InvalidParams, undefined],
  ])('finds where a resource is read: %s', (_case, uri, notFound, expected) => {
    const book = catalogue([
      { ...all('north'), resources: ['weather://{city}'] },
      { ...all('south'), resources: ['file:///readme', 'file:///south'] },
    ]);
    if (expected) expect(book.resource(uri, notFound)).toEqual(expected);
    else expect(refusal(() => book.resource(uri, notFound))).toEqual({ code: notFound, message: `MCP error ${notFound}: Resource ${uri} not found` });
  });

  it('quotes only an excerpt of a long name it does not have', () => {
    const long = 'x'.repeat(5000);
    expect(refusal(() => catalogue([all('north'), all('south')]).tool(long))?.message.length).toBeLessThan(200);
  });

  it.each<[string, unknown, { upstream: string; ref: Record<string, unknown> } | undefined]>([
    ['a prefixed prompt', { type: 'ref/prompt', name: 'south__greet' }, { upstream: 'south', ref: { type: 'ref/prompt', name: 'greet' } }],
    ['a template under the URI shown', { type: 'ref/resource', uri: 'weather://{city}' }, { upstream: 'north', ref: { type: 'ref/resource', uri: 'weather://{city}' } }],
    ['an unknown prompt', { type: 'ref/prompt', name: 'nope' }, undefined],
    ['a reference of another type', { type: 'ref/tool', name: 'echo' }, undefined],
    ['no reference at all', undefined, undefined],
  ])('finds where a completion goes: %s', (_case, ref, expected) => {
    const book = catalogue([all('north'), all('south')]);
    if (expected) expect(book.completion(ref)).toEqual(expected);
    else expect(refusal(() => book.completion(ref))?.message).toBe(`MCP error ${ErrorCode.InvalidParams}: Unknown completion reference`);
  });

  it('answers a read under the URI the client asked by', () => {
    const target = { upstream: 'south', original: 'file:///readme' };
    const result = {
      contents: [
        { uri: 'file:///readme', text: 'hi' },
        { uri: 'file:///other', text: 'there' },
      ],
    };
    expect(Catalogue.readAs(result, target, 'mcpgw://south/file:///readme').contents).toEqual([
      { uri: 'mcpgw://south/file:///readme', text: 'hi' },
      { uri: 'file:///other', text: 'there' },
    ]);
    expect(Catalogue.readAs(result, target, 'file:///readme')).toBe(result);
  });
});

describe('the capabilities a session of a virtual server is opened with', () => {
  const unloaded: UpstreamOffer = { ...offer({ capabilities: {} }), unloaded: true };
  const resourcesOnly = offer({ resources: ['file:///readme'], capabilities: { resources: {} } });

  it('promises what the server selects of an upstream not loaded yet, so its tools come with a list change', () => {
    const view = new CatalogueView(
      [all('north'), { upstream: 'south', tools: ['echo'], resources: [], prompts: [] }],
      new Map([
        ['north', resourcesOnly],
        ['south', unloaded],
      ]),
      'on-collision',
      true,
    );
    expect(view.capabilities).toEqual({ tools: { listChanged: true }, resources: { listChanged: true } });
    expect(view.tools).toEqual([]);
  });

  it('declares only what loaded upstreams offer, and promises a request without a session no list changes', () => {
    const south = { upstream: 'south', tools: ['echo'], resources: [], prompts: [] };
    expect(new CatalogueView([all('north')], new Map([['north', resourcesOnly]]), 'on-collision', true).capabilities).toEqual({ resources: { listChanged: true } });
    expect(
      new CatalogueView(
        [all('north'), south],
        new Map([
          ['north', resourcesOnly],
          ['south', unloaded],
        ]),
        'on-collision',
        false,
      ).capabilities,
    ).toEqual({ tools: {}, resources: {} });
  });
});

describe('the catalogue, a page at a time', () => {
  const selections = [all('north'), all('south')];

  /** Every page's names, following the cursors from the first page. */
  function pages(pageSize: number): string[][] {
    const book = catalogue(selections, 'on-collision', pageSize);
    const seen: string[][] = [];
    let cursor: string | undefined;
    do {
      const { tools, nextCursor } = book.listTools(cursor);
      seen.push(tools.map((t) => t.name));
      cursor = nextCursor;
    } while (cursor !== undefined && seen.length < 10);
    return seen;
  }

  it.each<[number, string[][]]>([
    [2, [['north__echo', 'add'], ['north-only', 'south__echo'], ['south-only']]],
    [5, [['north__echo', 'add', 'north-only', 'south__echo', 'south-only']]],
    [100, [['north__echo', 'add', 'north-only', 'south__echo', 'south-only']]],
  ])('pages of %i follow their cursors to the end, and the last has none', (pageSize, expected) => {
    expect(pages(pageSize)).toEqual(expected);
  });

  it.each<[string, unknown]>([
    ['not base64 of a position', 'bogus'],
    ['a number', 2],
    ['an object', { p: 2 }],
  ])('refuses a cursor that is %s with Invalid params', (_case, cursor) => {
    expect(refusal(() => catalogue(selections, 'on-collision', 2).listTools(cursor))).toEqual({
      code: ErrorCode.InvalidParams,
      message: `MCP error ${ErrorCode.InvalidParams}: Invalid cursor`,
    });
  });
});

describe('the catalogue behind an access policy', () => {
  /** A policy that hides one item: what a tool-level access rule would plug in. */
  const hiding = (hidden: CatalogueItemRef): CatalogueAccess & { asked: CatalogueCaller[] } => {
    const asked: CatalogueCaller[] = [];
    return {
      asked,
      permits: (caller, item) => {
        asked.push(caller);
        return !(item.kind === hidden.kind && item.upstream === hidden.upstream && item.name === hidden.name);
      },
    };
  };

  it('leaves what the caller may not use out of the list and the pages', () => {
    const book = catalogue([all('north'), all('south')], 'on-collision', 2, hiding({ kind: 'tool', upstream: 'north', name: 'add' }));
    const first = book.listTools(undefined);
    expect(first.tools.map((t) => t.name)).toEqual(['north__echo', 'north-only']);
    expect(book.listTools(first.nextCursor).tools.map((t) => t.name)).toEqual(['south__echo', 'south-only']);
  });

  it('answers a call to a hidden tool, even by a name no list shows, as one it does not have', () => {
    const policy = hiding({ kind: 'tool', upstream: 'south', name: 'hidden' });
    const book = catalogue([all('north'), all('south')], 'on-collision', 100, policy);
    expect(refusal(() => book.tool('south__hidden'))?.message).toBe(`MCP error ${ErrorCode.InvalidParams}: Tool south__hidden not found`);
    expect(book.tool('south__echo')).toMatchObject({ upstream: 'south', original: 'echo' });
    expect(policy.asked[0]).toMatchObject({ serverId: 'alpha', grant: { principal: 'alice' } });
  });

  it.each<[string, CatalogueItemRef, (book: Catalogue) => unknown]>([
    ['a prompt', { kind: 'prompt', upstream: 'south', name: 'farewell' }, (book) => book.prompt('farewell')],
    ['a resource', { kind: 'resource', upstream: 'south', name: 'file:///south' }, (book) => book.resource('file:///south', -32002)],
    ['a completion of a hidden prompt', { kind: 'prompt', upstream: 'south', name: 'farewell' }, (book) => book.completion({ type: 'ref/prompt', name: 'farewell' })],
    [
      'a completion of a hidden template',
      { kind: 'resource-template', upstream: 'north', name: 'weather://{city}' },
      (book) => book.completion({ type: 'ref/resource', uri: 'weather://{city}' }),
    ],
  ])('refuses %s the caller may not use', (_case, hidden, lookup) => {
    const open = catalogue([all('north'), all('south')]);
    expect(refusal(() => lookup(open))).toBeUndefined();
    expect(refusal(() => lookup(catalogue([all('north'), all('south')], 'on-collision', 100, hiding(hidden))))).toBeDefined();
  });
});

describe('the audit of tool calls, as the catalogue reports them', () => {
  const caller: CatalogueCaller = { serverId: 'alpha', grant: { principal: 'alice', servers: ['alpha'] }, sessions: false };
  const hideAdd: CatalogueAccess = { permits: (_caller, item) => item.name !== 'add' };

  function audited(keepsPayloads = false, limits?: ToolRateLimits) {
    const events: ToolCallEvent[] = [];
    const audit: ToolCallAudit = { keepsPayloads: () => keepsPayloads, record: (event) => void events.push(event) };
    const book = new Catalogue(new CatalogueView([{ ...all('north'), tools: ['echo', 'add'] }], OFFERS, 'on-collision', false), 100, { caller, policy: hideAdd }, undefined, {
      caller,
      audit,
      ...(limits ? { limits } : {}),
    });
    return { book, events };
  }

  const answer = (result: Record<string, unknown>) => async () => result;

  it('records how each call ended, never its arguments or result unless asked', async () => {
    const { book, events } = audited();
    await book.callTool({ name: 'echo', arguments: { text: 'secret' } }, answer({ content: [] }));
    await book.callTool({ name: 'echo' }, answer({ content: [], isError: true }));
    await expect(
      book.callTool({ name: 'echo' }, async () => {
        throw new McpError(-32000, 'upstream down');
      }),
    ).rejects.toThrow('upstream down');
    await expect(book.callTool({ name: 'add' }, answer({}))).rejects.toThrow('Tool add not found');
    await expect(book.callTool({ name: 'north__nothing' }, answer({}))).rejects.toThrow('Tool north__nothing not found');
    expect(events.map(({ tool, upstream, outcome, errorCode }) => ({ tool, upstream, outcome, errorCode }))).toEqual([
      { tool: 'echo', upstream: 'north', outcome: 'ok', errorCode: undefined },
      { tool: 'echo', upstream: 'north', outcome: 'tool_error', errorCode: undefined },
      { tool: 'echo', upstream: 'north', outcome: 'error', errorCode: -32000 },
      { tool: 'add', upstream: 'north', outcome: 'denied', errorCode: undefined },
      { tool: 'north__nothing', upstream: null, outcome: 'not_found', errorCode: undefined },
    ]);
    expect(events.every((event) => event.arguments === undefined && event.result === undefined && event.durationMs >= 0)).toBe(true);
  });

  it('keeps arguments as sent and the result as answered when the server asks', async () => {
    const { book, events } = audited(true);
    await book.callTool({ name: 'echo', arguments: { text: 'hi' } }, answer({ content: [{ type: 'text', text: 'hi' }] }));
    expect(events[0]).toMatchObject({ outcome: 'ok', arguments: { text: 'hi' }, result: { content: [{ type: 'text', text: 'hi' }] } });
  });

  it('records a call its rate limit refused, which never reaches the upstream', async () => {
    const refusing = { admit: async () => Promise.reject(new McpError(-32029, 'Rate limit exceeded')) } as unknown as ToolRateLimits;
    const { book, events } = audited(false, refusing);
    let sent = false;
    await expect(book.callTool({ name: 'echo' }, async () => ((sent = true), {}))).rejects.toThrow('Rate limit exceeded');
    expect(sent).toBe(false);
    expect(events[0]).toMatchObject({ outcome: 'rate_limited', errorCode: -32029 });
  });
});
