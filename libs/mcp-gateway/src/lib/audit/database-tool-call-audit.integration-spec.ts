// The audit's writer on a real PostgreSQL: rows queued by tool calls are written in batches, a
// backlog larger than one statement may carry is written whole, and rows a failed write held are
// written once the database takes them again. (6 000 rows of 13 parameters: more than one statement takes.)
import { DataSource } from 'typeorm';
import { dataSourceOptions, runMigrationsLocked } from '@arbor/platform';
import { createTestDatabase, TestDatabase } from '@arbor/testing';
import type { CatalogueCaller } from '../catalogue/catalogue-access';
import { MCP_GATEWAY_ENTITIES, MCP_GATEWAY_MIGRATIONS } from '../database';
import { InMemoryServerRegistry } from '../transports/testing/test-gateway';
import { DatabaseToolCallAudit } from './database-tool-call-audit';
import type { ToolCallEvent } from './tool-call-audit';

describe('the audit of tool calls in PostgreSQL', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  const registry = new InMemoryServerRegistry(
    [],
    [
      { id: 'repos', project: 'alpha', name: 'Repos', selections: [{ upstream: 'github', tools: '*', resources: '*', prompts: '*' }] },
      { id: 'docs', project: 'beta', name: 'Docs', selections: [{ upstream: 'wiki', tools: '*', resources: '*', prompts: '*' }], auditPayloads: true },
    ],
  );
  const person: CatalogueCaller = { serverId: 'repos', grant: { principal: 'sub-ada', servers: ['repos', 'docs'], who: { kind: 'person', name: 'ada' } }, sessions: false };
  const event = (tool: string, caller = person): ToolCallEvent => ({ caller, tool, upstream: 'github', outcome: 'ok', durationMs: 1.23456 });

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = await new DataSource(
      dataSourceOptions({ url: database.url, applicationName: 'mcp-audit-test', entities: MCP_GATEWAY_ENTITIES, migrations: MCP_GATEWAY_MIGRATIONS }),
    ).initialize();
    await runMigrationsLocked(dataSource);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  const rows = async () =>
    (await dataSource.query('select server_id, projects, caller_kind, caller_id, caller_name, upstream, tool, outcome, duration_ms from mcp_tool_calls order by id')) as Record<
      string,
      unknown
    >[];

  it('writes a backlog larger than one statement takes, as who called what, where and how it ended', async () => {
    const audit = new DatabaseToolCallAudit(dataSource, registry);
    for (let index = 0; index < 6_000; index++) audit.record(event(`tool-${index}`));
    // On /mcp, a call belongs to the projects of the caller's servers that select its upstream.
    audit.record({ ...event('search'), caller: { ...person, serverId: null } });
    audit.record({ ...event('deploy'), caller: { serverId: 'repos', grant: { principal: 'key:7f3e', servers: ['repos'], who: { kind: 'key', name: 'ci' } }, sessions: false } });
    // A call no upstream is known for counts for every server of the grant; a grant of no server, for none.
    audit.record({ ...event('unknown'), upstream: null, caller: { ...person, serverId: null } });
    audit.record({ ...event('nowhere'), caller: { serverId: null, grant: { principal: 'sub-bo', servers: [], who: { kind: 'person', name: 'bo' } }, sessions: false } });
    await audit.flush();
    const written = await rows();
    expect(written).toHaveLength(6_004);
    expect(written[0]).toEqual({
      server_id: 'repos',
      projects: ['alpha'],
      caller_kind: 'person',
      caller_id: 'sub-ada',
      caller_name: 'ada',
      upstream: 'github',
      tool: 'tool-0',
      outcome: 'ok',
      duration_ms: 1.235,
    });
    expect(written[6_000]).toMatchObject({ server_id: null, projects: ['alpha'], tool: 'search' });
    expect(written[6_001]).toMatchObject({ caller_kind: 'key', caller_id: '7f3e', caller_name: 'ci', tool: 'deploy' });
    expect(written[6_002]).toMatchObject({ projects: ['alpha', 'beta'], upstream: null, tool: 'unknown' });
    expect(written[6_003]).toMatchObject({ projects: [], caller_name: 'bo', tool: 'nowhere' });
  });

  it('keeps what a failed write held and writes it once the database takes rows again', async () => {
    const before = (await rows()).length;
    await dataSource.query('alter table mcp_tool_calls rename to mcp_tool_calls_away');
    const audit = new DatabaseToolCallAudit(dataSource, registry);
    audit.record(event('while-away'));
    await audit.flush();
    await dataSource.query('alter table mcp_tool_calls_away rename to mcp_tool_calls');
    await audit.flush();
    const after = await rows();
    expect(after).toHaveLength(before + 1);
    expect(after[after.length - 1]).toMatchObject({ tool: 'while-away' });
  });

  it('keeps payloads only for the servers that ask, and replaces one too large by its size', async () => {
    const audit = new DatabaseToolCallAudit(dataSource, registry);
    const docs: CatalogueCaller = { ...person, serverId: 'docs' };
    expect(audit.keepsPayloads(person, 'github')).toBe(false);
    expect(audit.keepsPayloads(docs, 'wiki')).toBe(true);
    audit.record({ ...event('read'), caller: docs, upstream: 'wiki', arguments: { page: 'home' }, result: { content: [{ type: 'text', text: 'x'.repeat(70 * 1024) }] } });
    await audit.flush();
    const [row] = (await dataSource.query("select arguments, result from mcp_tool_calls where tool = 'read'")) as { arguments: unknown; result: unknown }[];
    expect(row).toEqual({ arguments: { page: 'home' }, result: { arbor_truncated: true, bytes: expect.any(Number) } });
  });
});
