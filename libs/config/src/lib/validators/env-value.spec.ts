import { parseListenAddress } from './env-value';

describe('listen addresses', () => {
  it.each([
    ['0.0.0.0:8080', { host: '0.0.0.0', port: 8080 }],
    ['127.0.0.1:0', { host: '127.0.0.1', port: 0 }],
    ['[::]:4444', { host: '::', port: 4444 }],
    [':4000', { host: '0.0.0.0', port: 4000 }],
    ['localhost:8081', { host: 'localhost', port: 8081 }],
  ])('parses %s', (value, expected) => {
    expect(parseListenAddress(value)).toEqual(expected);
  });

  it.each(['8080', 'host:', 'host:70000', 'a b:80', 'http://x:80'])('refuses %s', (value) => {
    expect(parseListenAddress(value)).toBeUndefined();
  });
});
