import request from 'supertest';
import { ControlPlaneHarness, startControlPlane } from '../testing/control-plane-harness';

const ADMIN_SUBJECT = 'e6bb361f-6782-4c86-8e89-a804a599a83e';

describe('the workspace settings (/api/v1/workspace/settings)', () => {
  let cp: ControlPlaneHarness;
  let admin: string;

  const put = (token: string, body: object) => request(cp.url).put('/api/v1/workspace/settings').auth(token, { type: 'bearer' }).send(body);
  const get = (token: string) => request(cp.url).get('/api/v1/workspace/settings').auth(token, { type: 'bearer' });
  const audited = async () =>
    (await cp.dataSource.query("select actor_subject, details from audit_log where action = 'workspace.updated' order by id")) as {
      actor_subject: string;
      details: unknown;
    }[];

  beforeAll(async () => {
    cp = await startControlPlane();
    admin = await cp.person('admin');
  });

  afterAll(() => cp.close());

  it('answers any person or machine client with the name and the time zone; no token is 401', async () => {
    expect((await request(cp.url).get('/api/v1/workspace/settings')).status).toBe(401);
    for (const token of [await cp.person('alice'), await cp.machine('mcp-gateway-m2m'), admin]) {
      const response = await get(token);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ name: 'Arbor', timezone: 'UTC', locale: null });
    }
  });

  it('lets only administrators change them (a person or a machine 403)', async () => {
    for (const token of [await cp.person('alice'), await cp.machine('ai-gateway-m2m')]) {
      expect((await put(token, { name: 'Taken over' })).status).toBe(403);
    }
    expect((await get(admin)).body.name).toBe('Arbor');
    expect(await audited()).toEqual([]);
  });

  it('changes the name and the time zone and audits what changed', async () => {
    const response = await put(admin, { name: '  Arbor Demo ', timezone: 'Europe/Berlin' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ name: 'Arbor Demo', timezone: 'Europe/Berlin', locale: null });
    expect((await get(await cp.person('bob'))).body).toEqual({ name: 'Arbor Demo', timezone: 'Europe/Berlin', locale: null });
    expect(await cp.dataSource.query('select name, timezone from workspace')).toEqual([{ name: 'Arbor Demo', timezone: 'Europe/Berlin' }]);
    expect(await audited()).toEqual([
      {
        actor_subject: ADMIN_SUBJECT,
        details: { changes: { name: { from: 'Arbor', to: 'Arbor Demo' }, timezone: { from: 'UTC', to: 'Europe/Berlin' } } },
      },
    ]);

    // One field alone; the other stays. A change that changes nothing is not audited.
    expect((await put(admin, { timezone: 'UTC' })).body).toEqual({ name: 'Arbor Demo', timezone: 'UTC', locale: null });
    expect((await put(admin, { timezone: 'UTC' })).status).toBe(200);
    expect(await audited()).toHaveLength(2);
    // Current IANA names that Node's own list spells the older way.
    for (const timezone of ['Europe/Kyiv', 'America/Argentina/Buenos_Aires']) {
      expect((await put(admin, { timezone })).body.timezone).toBe(timezone);
    }
  });

  it('accepts only IANA time zones, naming the field', async () => {
    const before = (await get(admin)).body;
    for (const timezone of ['Mars/Olympus', 'europe/berlin', 'Europe/BERLIN', '+01:00', 'CEST', 'Etc/Nowhere', '', 42, null]) {
      const response = await put(admin, { timezone });
      expect({ timezone, status: response.status }).toEqual({ timezone, status: 400 });
      expect(response.body.error.code).toBe('invalid_request');
      expect(Object.keys(response.body.error.details.fields)).toEqual(['timezone']);
    }
    expect((await get(admin)).body).toEqual(before);
  });

  it('sets the locale product UIs write numbers, money and dates in, canonically spelt; null gives it back to the browser', async () => {
    expect((await put(admin, { locale: 'de-de' })).body.locale).toBe('de-DE');
    expect((await get(await cp.person('alice'))).body.locale).toBe('de-DE');
    expect((await audited()).at(-1)?.details).toEqual({ changes: { locale: { from: null, to: 'de-DE' } } });
    for (const locale of ['en', 'fr-CA', 'ja-JP']) expect((await put(admin, { locale })).body.locale).toBe(locale);
    for (const locale of ['not a tag', 'de_DE', 'x', '', 42]) {
      const response = await put(admin, { locale });
      expect({ locale, status: response.status }).toEqual({ locale, status: 400 });
      expect(Object.keys(response.body.error.details.fields)).toEqual(['locale']);
    }
    expect((await put(admin, { locale: null })).body.locale).toBeNull();
    expect(await cp.dataSource.query('select locale from workspace')).toEqual([{ locale: null }]);
  });

  it('refuses a blank or missing name and fields it does not know', async () => {
    for (const [body, field] of [
      [{ name: '   ' }, 'name'],
      [{ name: null }, 'name'],
      [{ name: 'x'.repeat(201) }, 'name'],
      [{ currency: 'EUR' }, 'currency'],
    ] as const) {
      const response = await put(admin, body);
      expect(response.status).toBe(400);
      expect(Object.keys(response.body.error.details.fields)).toEqual([field]);
    }
  });
});
