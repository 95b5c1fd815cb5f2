// Keeps `npm run test:unit` honest: a `*.spec.ts` is pure, so starting a child process, a server or
// a connection out of the test process fails the test with the rule to follow. The one exception is
// supertest driving an in-memory app: it listens on a loopback port of its own and talks only to it.
const net = require('node:net');
const childProcess = require('node:child_process');

const RULE = 'is not pure; a test that starts a process, a server, a database or a network connection is a *.integration-spec.ts';
// Node's modules are shared by the test files a jest worker runs: patched once, told each file's path.
const GUARD = Symbol.for('arbor.pureSpecGuard');

function install() {
  const state = { testPath: '', ownServers: new Set() };
  const refuse = (what) => new Error(`${state.testPath} ${RULE} (${what})`);

  for (const name of ['spawn', 'spawnSync', 'fork', 'exec', 'execSync', 'execFile', 'execFileSync']) {
    childProcess[name] = (command) => {
      throw refuse(`it ran child_process.${name} ${String(command).slice(0, 64)}`);
    };
  }

  const listen = net.Server.prototype.listen;
  net.Server.prototype.listen = function guardedListen(...args) {
    if (!/[\\/]node_modules[\\/]supertest[\\/]/.test(new Error().stack ?? '')) throw refuse('it started a server');
    state.ownServers.add(this);
    this.once('close', () => state.ownServers.delete(this));
    return listen.apply(this, args);
  };

  const connect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function guardedConnect(...args) {
    // net.connect passes its normalized arguments as one array: [options, listener].
    const first = Array.isArray(args[0]) ? args[0][0] : args[0];
    const port = Number(typeof first === 'object' && first !== null ? first.port : first);
    if (![...state.ownServers].some((server) => server.address()?.port === port)) throw refuse(`it connected to port ${port}`);
    return connect.apply(this, args);
  };
  return state;
}

const state = net[GUARD] ?? (net[GUARD] = install());
state.testPath = expect.getState().testPath;
