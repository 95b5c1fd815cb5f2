// A STAND-IN for Redis, for tests on a machine without one: a RESP server in pure Node that
// implements exactly the commands the AI gateway's limits send (and what ioredis sends on connect),
// with Redis's replies and lazy key expiry. It is not Redis: no persistence, no other commands
// (they answer an error naming themselves), one process. Tests use a real Redis when one answers.
const net = require('node:net');

const OK = '+OK\r\n';
const NULL = '$-1\r\n';
const integer = (n) => `:${n}\r\n`;
const bulk = (value) => {
  const text = String(value);
  return `$${Buffer.byteLength(text)}\r\n${text}\r\n`;
};
const array = (items) => `*${items.length}\r\n${items.join('')}`;
const error = (message) => `-${message}\r\n`;
const WRONG_TYPE = error('WRONGTYPE Operation against a key holding the wrong kind of value');
const NOT_INTEGER = error('ERR value is not an integer or out of range');
const NOT_FLOAT = error('ERR value is not a valid float');

/** Reads RESP arrays of bulk strings (what clients send) from a growing buffer. */
function parseCommands(buffer) {
  const commands = [];
  let offset = 0;
  for (;;) {
    if (offset >= buffer.length) break;
    if (buffer[offset] !== 0x2a) {
      // Inline command (redis-cli style): one line of words.
      const end = buffer.indexOf('\r\n', offset);
      if (end < 0) break;
      commands.push(buffer.subarray(offset, end).toString().trim().split(/\s+/));
      offset = end + 2;
      continue;
    }
    const headerEnd = buffer.indexOf('\r\n', offset);
    if (headerEnd < 0) break;
    const count = Number(buffer.subarray(offset + 1, headerEnd).toString());
    let cursor = headerEnd + 2;
    const args = [];
    let complete = true;
    for (let i = 0; i < count; i += 1) {
      const lineEnd = buffer.indexOf('\r\n', cursor);
      if (lineEnd < 0) {
        complete = false;
        break;
      }
      const length = Number(buffer.subarray(cursor + 1, lineEnd).toString());
      const start = lineEnd + 2;
      if (buffer.length < start + length + 2) {
        complete = false;
        break;
      }
      args.push(buffer.subarray(start, start + length).toString());
      cursor = start + length + 2;
    }
    if (!complete) break;
    commands.push(args);
    offset = cursor;
  }
  return { commands, rest: buffer.subarray(offset) };
}

function startRedisStandIn({ port = 0, host = '127.0.0.1' } = {}) {
  const data = new Map(); // key -> { type: 'string' | 'zset', value, expiresAt }
  const subscribers = new Map(); // channel -> Set<socket>

  const entry = (key) => {
    const found = data.get(key);
    if (found && found.expiresAt !== undefined && found.expiresAt <= Date.now()) {
      data.delete(key);
      return undefined;
    }
    return found;
  };
  const stringValue = (key) => {
    const found = entry(key);
    if (!found) return null;
    return found.type === 'string' ? found.value : WRONG_TYPE;
  };
  const addNumber = (key, delta, float) => {
    const found = entry(key);
    if (found && found.type !== 'string') return WRONG_TYPE;
    const current = found ? Number(found.value) : 0;
    if (!Number.isFinite(current) || (!float && !Number.isInteger(current))) return float ? NOT_FLOAT : NOT_INTEGER;
    const next = current + delta;
    data.set(key, { type: 'string', value: String(next), expiresAt: found ? found.expiresAt : undefined });
    return float ? bulk(String(next)) : integer(next);
  };
  const zset = (key, create) => {
    const found = entry(key);
    if (found && found.type !== 'zset') return WRONG_TYPE;
    if (found) return found.value;
    if (!create) return undefined;
    const value = new Map();
    data.set(key, { type: 'zset', value, expiresAt: undefined });
    return value;
  };
  const dropIfEmpty = (key, members) => {
    if (members.size === 0) data.delete(key);
  };
  const score = (text) => (text === '-inf' ? -Infinity : text === '+inf' || text === 'inf' ? Infinity : Number(text));

  const commands = {
    PING: (args) => (args.length > 0 ? bulk(args[0]) : '+PONG\r\n'),
    INFO: () => bulk('# Server\r\nredis_version:7.0.0-arbor-stand-in\r\nredis_mode:standalone\r\nloading:0\r\n'),
    SELECT: () => OK,
    CLIENT: () => OK,
    QUIT: () => OK,
    FLUSHALL: () => (data.clear(), OK),
    DEL: (args) => integer(args.filter((key) => entry(key) && data.delete(key)).length),
    GET: ([key]) => {
      const value = stringValue(key);
      return value === null ? NULL : value === WRONG_TYPE ? value : bulk(value);
    },
    SET: ([key, value, ...options]) => {
      let expiresAt;
      let mode;
      for (let i = 0; i < options.length; i += 1) {
        const option = options[i].toUpperCase();
        if (option === 'PX') expiresAt = Date.now() + Number(options[++i]);
        else if (option === 'EX') expiresAt = Date.now() + Number(options[++i]) * 1000;
        else if (option === 'NX' || option === 'XX') mode = option;
        else return error('ERR syntax error');
      }
      const exists = entry(key) !== undefined;
      if ((mode === 'NX' && exists) || (mode === 'XX' && !exists)) return NULL;
      data.set(key, { type: 'string', value, expiresAt });
      return OK;
    },
    INCR: ([key]) => addNumber(key, 1, false),
    DECR: ([key]) => addNumber(key, -1, false),
    INCRBY: ([key, delta]) => addNumber(key, Number(delta), false),
    INCRBYFLOAT: ([key, delta]) => addNumber(key, Number(delta), true),
    PEXPIRE: ([key, ms]) => {
      const found = entry(key);
      if (!found) return integer(0);
      found.expiresAt = Date.now() + Number(ms);
      return integer(1);
    },
    PTTL: ([key]) => {
      const found = entry(key);
      if (!found) return integer(-2);
      return integer(found.expiresAt === undefined ? -1 : found.expiresAt - Date.now());
    },
    ZADD: ([key, ...pairs]) => {
      const members = zset(key, true);
      if (members === WRONG_TYPE) return members;
      let added = 0;
      for (let i = 0; i + 1 < pairs.length; i += 2) {
        if (!members.has(pairs[i + 1])) added += 1;
        members.set(pairs[i + 1], score(pairs[i]));
      }
      return integer(added);
    },
    ZREM: ([key, ...names]) => {
      const members = zset(key, false);
      if (members === WRONG_TYPE) return members;
      if (!members) return integer(0);
      const removed = names.filter((name) => members.delete(name)).length;
      dropIfEmpty(key, members);
      return integer(removed);
    },
    ZCARD: ([key]) => {
      const members = zset(key, false);
      if (members === WRONG_TYPE) return members;
      return integer(members ? members.size : 0);
    },
    ZREMRANGEBYSCORE: ([key, min, max]) => {
      const members = zset(key, false);
      if (members === WRONG_TYPE) return members;
      if (!members) return integer(0);
      let removed = 0;
      for (const [name, value] of members) {
        if (value >= score(min) && value <= score(max)) {
          members.delete(name);
          removed += 1;
        }
      }
      dropIfEmpty(key, members);
      return integer(removed);
    },
    PUBLISH: ([channel, message]) => {
      const listeners = subscribers.get(channel) ?? new Set();
      for (const socket of listeners) socket.write(array([bulk('message'), bulk(channel), bulk(message)]));
      return integer(listeners.size);
    },
  };

  const server = net.createServer((socket) => {
    let pending = Buffer.alloc(0);
    const channels = new Set();
    socket.on('error', () => undefined);
    socket.on('close', () => {
      for (const channel of channels) subscribers.get(channel)?.delete(socket);
    });
    socket.on('data', (chunk) => {
      const { commands: received, rest } = parseCommands(Buffer.concat([pending, chunk]));
      pending = Buffer.from(rest);
      let replies = '';
      for (const [name = '', ...args] of received) {
        const command = name.toUpperCase();
        if (command === 'SUBSCRIBE' || command === 'UNSUBSCRIBE') {
          for (const channel of args) {
            if (command === 'SUBSCRIBE') {
              channels.add(channel);
              if (!subscribers.has(channel)) subscribers.set(channel, new Set());
              subscribers.get(channel).add(socket);
            } else {
              channels.delete(channel);
              subscribers.get(channel)?.delete(socket);
            }
            replies += array([bulk(command.toLowerCase()), bulk(channel), integer(channels.size)]);
          }
          continue;
        }
        const handler = commands[command];
        replies += handler ? handler(args) : error(`ERR unknown command '${name}' (the Redis stand-in implements only what the gateway sends)`);
        if (command === 'QUIT') {
          socket.end(replies);
          return;
        }
      }
      if (replies) socket.write(replies);
    });
  });

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address();
      resolve({
        url: `redis://${host}:${address.port}`,
        stop: () =>
          new Promise((done) => {
            server.close(() => done());
            for (const listeners of subscribers.values()) for (const socket of listeners) socket.destroy();
          }),
        server,
      });
    });
  });
}

module.exports = { startRedisStandIn };
