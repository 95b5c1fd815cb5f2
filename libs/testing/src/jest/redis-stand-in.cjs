// A STAND-IN for Redis, for tests on a machine without one (npm ci && npm test needs no Redis).
// Redis's commands, with their replies, expiry and Lua scripts, are ioredis-mock's (the in-memory
// Redis of the ioredis ecosystem): this file only serves them over RESP on a TCP port, so that the
// gateways, built and run as their own processes, reach it as they reach Redis, and keeps what
// belongs to a connection (pub/sub, SELECT, CLIENT, QUIT). No npm package ships a Redis or Valkey
// server that runs without a download or a compiler, so a real one is used only when one answers.
const net = require('node:net');
const commands = require('@ioredis/commands');
const RedisMock = require('ioredis-mock');
const RedisParser = require('redis-parser');

const OK = 'OK';

/** One reply in RESP: null, an error, an integer, an array, or a bulk string. */
function encode(value) {
  if (value === null || value === undefined) return '$-1\r\n';
  if (value instanceof Error) {
    const message = value.message.replace(/\s+/g, ' ');
    return `-${/^[A-Z]+ /.test(message) ? message : `ERR ${message}`}\r\n`;
  }
  if (typeof value === 'number' && Number.isInteger(value)) return `:${value}\r\n`;
  if (Array.isArray(value)) return `*${value.length}\r\n${value.map(encode).join('')}`;
  const text = String(value);
  return `$${Buffer.byteLength(text)}\r\n${text}\r\n`;
}

function startRedisStandIn({ port = 0, host = '127.0.0.1' } = {}) {
  const subscribers = new Map(); // channel -> Set<socket>
  let redis; // the data, shared by every connection; made once the port is known (ioredis-mock keys its data by host and port)

  const publish = (channel, message) => {
    const listeners = subscribers.get(channel) ?? new Set();
    for (const socket of listeners) socket.write(encode(['message', channel, message]));
    return listeners.size;
  };

  /** What one connection's command answers (ioredis-mock's, but for what is the connection's own). */
  const answer = async (name, args, connection) => {
    switch (name) {
      case 'select':
      case 'client':
      case 'quit':
        return OK;
      case 'publish':
        return publish(args[0], args[1]);
      case 'subscribe':
      case 'unsubscribe':
        return args.map((channel) => {
          if (name === 'subscribe') {
            connection.channels.add(channel);
            if (!subscribers.has(channel)) subscribers.set(channel, new Set());
            subscribers.get(channel).add(connection.socket);
          } else {
            connection.channels.delete(channel);
            subscribers.get(channel)?.delete(connection.socket);
          }
          return [name, channel, connection.channels.size];
        });
      default:
        if (!commands.exists(name)) return new Error(`ERR unknown command '${name}'`);
        return redis[name](...args);
    }
  };

  const server = net.createServer((socket) => {
    const connection = { socket, channels: new Set() };
    // Replies leave in the order the commands came, as Redis answers a pipeline.
    let replying = Promise.resolve();
    const parser = new RedisParser({
      returnReply: ([command = '', ...args]) => {
        const name = String(command).toLowerCase();
        replying = replying.then(async () => {
          const reply = await answer(name, args, connection).catch((error) => error);
          if (socket.destroyed) return;
          // (UN)SUBSCRIBE answers once per channel, not with one array.
          const replies = name === 'subscribe' || name === 'unsubscribe' ? reply.map(encode).join('') : encode(reply);
          if (name === 'quit') socket.end(replies);
          else socket.write(replies);
        });
      },
      returnError: (error) => socket.destroy(error),
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      for (const channel of connection.channels) subscribers.get(channel)?.delete(socket);
    });
    socket.on('data', (chunk) => parser.execute(chunk));
  });

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address();
      redis = new RedisMock({ host: 'stand-in', port: address.port, lazyConnect: false });
      resolve({
        url: `redis://${host}:${address.port}`,
        stop: () =>
          new Promise((done) => {
            server.close(() => done());
            for (const listeners of subscribers.values()) for (const socket of listeners) socket.destroy();
            void redis.flushall().then(() => redis.disconnect());
          }),
        server,
      });
    });
  });
}

module.exports = { startRedisStandIn };
