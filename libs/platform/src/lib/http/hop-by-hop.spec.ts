import { HOP_BY_HOP_HEADERS, headersForNextHop, withHopByHop } from './hop-by-hop';

describe('the hop-by-hop rule', () => {
  it('is one list that every place extends with what it frames anew, never shortens', () => {
    const answer = withHopByHop('content-length', 'date');
    for (const name of HOP_BY_HOP_HEADERS) expect(answer.has(name)).toBe(true);
    expect([...answer].filter((name) => !HOP_BY_HOP_HEADERS.has(name))).toEqual(['content-length', 'date']);
  });

  it('leaves every connection header of RFC 9110 out of a message sent on, and keeps the rest', () => {
    const hops = Object.fromEntries([...HOP_BY_HOP_HEADERS].map((name) => [name, 'x']));
    expect(headersForNextHop({ ...hops, 'content-type': 'application/json', accept: undefined })).toEqual({ 'content-type': 'application/json' });
    expect(headersForNextHop({ 'content-length': '3', etag: '"a"' }, withHopByHop('content-length'))).toEqual({ etag: '"a"' });
  });
});
