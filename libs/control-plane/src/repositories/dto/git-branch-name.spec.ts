import { isGitBranchName } from './git-branch-name';

describe('isGitBranchName', () => {
  it.each(['main', 'develop', 'release/2.1', 'feature/JIRA-42_add-x', 'v1.0', 'a.b/c.d', 'üñí'])('accepts %j', (name) => {
    expect(isGitBranchName(name)).toBe(true);
  });

  it.each([
    ['', 'empty'],
    ['a'.repeat(256), 'too long'],
    ['@', 'the lone @'],
    ['HEAD', 'HEAD'],
    ['-main', 'a leading hyphen'],
    ['/main', 'a leading slash'],
    ['main/', 'a trailing slash'],
    ['main.', 'a trailing dot'],
    ['a..b', 'two dots'],
    ['a//b', 'two slashes'],
    ['a@{1}', '@{'],
    ['a b', 'a space'],
    ['a\tb', 'a control character'],
    ['a~1', '~'],
    ['a^', '^'],
    ['a:b', ':'],
    ['a?', '?'],
    ['a*', '*'],
    ['a[b', '['],
    ['a\\b', 'a backslash'],
    ['.hidden', 'a component starting with a dot'],
    ['feature/.x', 'a later component starting with a dot'],
    ['main.lock', '.lock'],
    ['x.lock/y', 'a component ending in .lock'],
  ])('refuses %j (%s)', (name) => {
    expect(isGitBranchName(name)).toBe(false);
  });
});
