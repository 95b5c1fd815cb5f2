import type { lookup, LookupAddress } from 'node:dns';
import { checkUpstreamUrl, guardedLookup, UpstreamUrlRefused } from './upstream-url-guard';

const refusal = async (url: string, addresses: string[] = ['203.0.113.7'], allowLinkLocal = false): Promise<UpstreamUrlRefused | undefined> => {
  try {
    await checkUpstreamUrl(url, { allowLinkLocal, resolve: async () => addresses });
    return undefined;
  } catch (error) {
    if (error instanceof UpstreamUrlRefused) return error;
    throw error;
  }
};

describe('the upstream URL guard (SSRF)', () => {
  it.each([
    ['http://169.254.169.254/latest/meta-data/', 'metadata'],
    ['http://2852039166/latest/', 'metadata'],
    ['http://100.100.100.200/', 'metadata'],
    ['http://168.63.129.16/', 'metadata'],
    ['http://[::ffff:168.63.129.16]/', 'metadata'],
    ['http://[fd00:ec2::254]/', 'metadata'],
    ['http://[::ffff:169.254.169.254]/', 'metadata'],
    ['http://metadata.google.internal/computeMetadata/v1/', 'metadata'],
    ['http://169.254.10.20:8080/mcp', 'link-local'],
    ['http://[fe80::1]:3001/mcp', 'link-local'],
  ])('refuses %s (%s)', async (url, reason) => {
    const refused = await refusal(url);
    expect(refused?.reason).toBe(reason);
    expect(refused?.message).toContain('MCPGW_ALLOW_LINK_LOCAL_UPSTREAMS=true');
  });

  // Behind a NAT64 gateway, a SIIT translator or a 6to4/Teredo relay these reach the IPv4 address they embed.
  it.each([
    ['IPv4-mapped', '::ffff:169.254.169.254', 'metadata'],
    ['IPv4-compatible', '::a9fe:a9fe', 'metadata'],
    ['SIIT (::ffff:0:0:0/96)', '::ffff:0:169.254.169.254', 'metadata'],
    ['NAT64 well-known prefix (64:ff9b::/96)', '64:ff9b::a9fe:a9fe', 'metadata'],
    ['NAT64 well-known prefix, dotted', '64:ff9b::169.254.169.254', 'metadata'],
    ['NAT64 local-use prefix (64:ff9b:1::/48) at /96', '64:ff9b:1::a9fe:a9fe', 'metadata'],
    ['NAT64 local-use prefix at /48', '64:ff9b:1:a9fe:a9:fe00::', 'metadata'],
    ['NAT64 local-use prefix at /64', '64:ff9b:1:0:a9:fea9:fe00:0', 'metadata'],
    ['6to4 (2002::/16)', '2002:a9fe:a9fe::1', 'metadata'],
    ['Teredo server (2001::/32)', '2001:0:a9fe:a9fe::1', 'metadata'],
    ['Teredo client, obfuscated', '2001:0:cb00:7107:0:ffff:5601:5601', 'metadata'],
    ['NAT64 of an Azure platform address', '64:ff9b::a83f:8110', 'metadata'],
    ['NAT64 of a link-local address', '64:ff9b::a9fe:a14', 'link-local'],
    ['6to4 of a link-local address', '2002:a9fe:0a14::', 'link-local'],
  ])('refuses the %s form %s, judged as the IPv4 address it embeds (%s)', async (_form, address, reason) => {
    const literal = await refusal(`http://[${address}]:3001/mcp`);
    expect(literal?.reason).toBe(reason);
    expect(literal?.message).toContain('MCPGW_ALLOW_LINK_LOCAL_UPSTREAMS=true');
    // The same when a name resolves to it, and at connect time.
    expect((await refusal('https://tools.example.com/mcp', [address]))?.reason).toBe(reason);
    const lookupFn = guardedLookup(false, ((_host: string, _options: unknown, callback: (error: Error | null, addresses: LookupAddress[]) => void) =>
      callback(null, [{ address, family: 6 }])) as unknown as typeof lookup);
    const error = await new Promise<(Error & { code?: string }) | null>((resolve) => lookupFn('tools.example.com', { all: true }, (failure) => resolve(failure)));
    expect(error).toMatchObject({ code: 'EUPSTREAMREFUSED', reason });
  });

  it('names the IPv4 address an embedding form reaches', async () => {
    expect((await refusal('http://[64:ff9b::a9fe:a9fe]/mcp'))?.message).toBe(
      'the upstream host 64:ff9b::a9fe:a9fe resolves to 64:ff9b::a9fe:a9fe (which reaches 169.254.169.254), a cloud metadata address; set MCPGW_ALLOW_LINK_LOCAL_UPSTREAMS=true to allow it',
    );
  });

  it('lets embedding forms of ordinary IPv4 addresses through', async () => {
    for (const address of ['64:ff9b::cb00:7107', '::ffff:10.0.0.5', '2002:cb00:7107::1', '::ffff:0:203.0.113.7', '2001:db8::1']) {
      expect(await refusal(`http://[${address}]:3001/mcp`)).toBeUndefined();
    }
  });

  it('refuses a host when any of its addresses is link-local', async () => {
    const refused = await refusal('https://tools.example.com/mcp', ['203.0.113.7', '169.254.3.4']);
    expect(refused?.reason).toBe('link-local');
    expect(refused?.message).toBe('the upstream host tools.example.com resolves to 169.254.3.4, a link-local address; set MCPGW_ALLOW_LINK_LOCAL_UPSTREAMS=true to allow it');
  });

  it('lets loopback, private and public addresses through, and everything when the setting allows link-local', async () => {
    expect(await refusal('http://127.0.0.1:3001/mcp')).toBeUndefined();
    expect(await refusal('http://tools.internal:8080/mcp', ['10.0.0.5', 'fd12::5'])).toBeUndefined();
    expect(await refusal('https://tools.example.com/mcp', ['203.0.113.7'])).toBeUndefined();
    expect(await refusal('http://169.254.169.254/', [], true)).toBeUndefined();
    expect(await refusal('http://metadata.google.internal/', ['169.254.169.254'], true)).toBeUndefined();
  });

  it('refuses credentials in the URL without repeating them, other schemes, and hosts that do not resolve', async () => {
    const credentials = await refusal('http://admin:hunter2@tools.example.com/mcp');
    expect(credentials?.reason).toBe('credentials-in-url');
    expect(credentials?.message).not.toContain('hunter2');
    expect((await refusal('file:///etc/passwd'))?.reason).toBe('not-http');
    expect((await refusal('https://nowhere.example.com/mcp', []))?.reason).toBe('unresolvable');
  });

  it('resolves real names through DNS', async () => {
    await expect(checkUpstreamUrl('http://localhost:3001/mcp', { allowLinkLocal: false })).resolves.toEqual(
      expect.arrayContaining([expect.stringMatching(/^(127\.0\.0\.1|::1)$/)]),
    );
  });

  describe('at connect time', () => {
    /** A resolver answering each lookup with the next list of addresses. */
    const dns = (...answers: string[][]) =>
      ((_host: string, _options: unknown, callback: (error: Error | null, addresses: LookupAddress[]) => void) => {
        const next = answers.shift() ?? [];
        callback(
          null,
          next.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
        );
      }) as unknown as typeof lookup;
    const connectTo = (lookupFn: ReturnType<typeof guardedLookup>, all = false) =>
      new Promise<{ error: (Error & { code?: string }) | null; address: unknown }>((resolve) =>
        lookupFn('tools.example.com', { all }, (error, address) => resolve({ error, address })),
      );

    it('refuses a name that resolves to a refused address, or starts to after a first good answer', async () => {
      const lookupFn = guardedLookup(false, dns(['10.0.0.5'], ['168.63.129.16'], ['203.0.113.7', '169.254.169.254']));
      expect(await connectTo(lookupFn)).toEqual({ error: null, address: '10.0.0.5' });
      const changed = await connectTo(lookupFn);
      expect(changed.error).toBeInstanceOf(UpstreamUrlRefused);
      expect(changed.error?.message).toContain('168.63.129.16, a cloud metadata address');
      expect((await connectTo(lookupFn, true)).error?.code).toBe('EUPSTREAMREFUSED');
    });

    it('lets every address through when the setting allows link-local', async () => {
      const lookupFn = guardedLookup(true, dns(['169.254.169.254']));
      expect(await connectTo(lookupFn, true)).toEqual({ error: null, address: [{ address: '169.254.169.254', family: 4 }] });
    });
  });
});
