import { pathPattern } from './route-patterns';

describe('route path patterns', () => {
  it('take one segment for {name}, any number for a last {name*}, in any letter case', () => {
    const file = pathPattern('/v1/files/{id}/content');
    expect(['/v1/files/file-1/content', '/V1/Files/x/CONTENT'].map((path) => file.test(path))).toEqual([true, true]);
    expect(['/v1/files//content', '/v1/files/a/b/content', '/v1/files/x/content/more'].map((path) => file.test(path))).toEqual([false, false, false]);
    const rest = pathPattern('/openai/{path*}');
    expect(['/openai', '/openai/', '/openai/v1/files/x', '/openai/../x'].map((path) => rest.test(path))).toEqual([true, true, true, true]);
    expect(['/openaix', '/open/ai'].map((path) => rest.test(path))).toEqual([false, false]);
  });

  it('read regular-expression characters in a path as themselves', () => {
    expect(pathPattern('/.well-known/x').test('/.well-known/x')).toBe(true);
    expect(pathPattern('/.well-known/x').test('/awell-known/x')).toBe(false);
  });
});
