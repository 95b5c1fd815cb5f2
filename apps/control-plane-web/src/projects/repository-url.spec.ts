import { parseRepositoryUrl } from './repository-url';

const gamma = { host: 'github.com', owner: 'acme', name: 'gamma-service' };

describe('a pasted repository URL', () => {
  it('gives host, owner and name from every way GitHub offers to copy a repository', () => {
    for (const url of [
      'github.com/acme/gamma-service',
      'https://github.com/acme/gamma-service',
      'https://github.com/acme/gamma-service.git',
      'https://github.com/acme/gamma-service/',
      '  https://github.com/acme/gamma-service  ',
      'http://www.github.com/acme/gamma-service',
      'git@github.com:acme/gamma-service.git',
      'ssh://git@github.com/acme/gamma-service.git',
      'https://github.com/acme/gamma-service/tree/main/src',
      'https://github.com/acme/gamma-service/pull/12',
      'https://GitHub.com/acme/gamma-service',
    ]) {
      expect([url, parseRepositoryUrl(url)]).toEqual([url, gamma]);
    }
  });

  it('reads other hosts the same way, with nested groups as the owner', () => {
    expect(parseRepositoryUrl('https://gitlab.com/acme/gamma-service.git')).toEqual({ host: 'gitlab.com', owner: 'acme', name: 'gamma-service' });
    expect(parseRepositoryUrl('git@gitlab.com:acme/platform/gamma-service.git')).toEqual({ host: 'gitlab.com', owner: 'acme/platform', name: 'gamma-service' });
    expect(parseRepositoryUrl('https://gitlab.com/acme/gamma-service/-/tree/main')).toEqual({ host: 'gitlab.com', owner: 'acme', name: 'gamma-service' });
    expect(parseRepositoryUrl('https://alice@bitbucket.org/acme/gamma-service.git')).toEqual({ host: 'bitbucket.org', owner: 'acme', name: 'gamma-service' });
    expect(parseRepositoryUrl('ssh://git@git.example.com:2222/team/tool.git')).toEqual({ host: 'git.example.com', owner: 'team', name: 'tool' });
  });

  it('is nothing for text that is not a repository URL', () => {
    for (const text of [
      '',
      'acme',
      'acme/gamma-service',
      'github.com',
      'https://github.com/acme',
      'not a url',
      'ftp://github.com/acme/gamma',
      'mailto:x@y.z',
      'localhost/acme/gamma',
    ]) {
      expect([text, parseRepositoryUrl(text)]).toEqual([text, null]);
    }
  });
});
