// One Redis for a jest run: TEST_REDIS_URL when set, else a server answering PING on
// 127.0.0.1:6379, else the stand-in RESP server of redis-stand-in.cjs (what a newcomer's machine
// without Redis gets; TEST_REDIS=stand-in forces it, to try that).
const net = require('node:net');
const { startRedisStandIn } = require('./redis-stand-in.cjs');

const LOCAL = { host: '127.0.0.1', port: 6379 };

function answersPing({ host, port }) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    let reply = '';
    const finish = (answers) => {
      socket.destroy();
      resolve(answers);
    };
    socket.setTimeout(1000, () => finish(false));
    socket.once('error', () => finish(false));
    socket.once('connect', () => socket.write('*1\r\n$4\r\nPING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) finish(reply.startsWith('+PONG'));
    });
  });
}

async function startTestRedis() {
  const standIn = async () => {
    const server = await startRedisStandIn();
    return { url: server.url, stop: server.stop };
  };
  if (process.env.TEST_REDIS === 'stand-in') return standIn();
  if (process.env.TEST_REDIS_URL) return { url: process.env.TEST_REDIS_URL, stop: async () => undefined };
  if (await answersPing(LOCAL)) return { url: `redis://${LOCAL.host}:${LOCAL.port}`, stop: async () => undefined };
  return standIn();
}

module.exports = { startTestRedis };
