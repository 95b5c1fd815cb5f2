// Reads a V8 CPU profile (`node --cpu-prof`) of a built service and says where its CPU went, stage
// by stage: each sample is given to the innermost frame of the suite's own code on its stack (its
// source file found through the bundle's source map), and that file to a stage by the rules the
// caller passes; samples with none of our code on the stack go by the library or Node.js part
// they ran in (the HTTP server parsing a request, undici, the garbage collector…). Only the
// samples inside `window` (microseconds on the monotonic clock that `process.hrtime` reads, which
// is the profile's own) count, so start-up and the quiet time around a load are left out.
import fs from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

// What a sample's own frame says whoever called it: the system calls that send on a socket (on
// loopback they carry the receiver's side of TCP too), the garbage collector, V8 itself.
const LEAVES = [
  [/^(writev|writeBuffer|writeString|writeUtf8String|writeLatin1String|writeAsciiString|writeUcs2String)$/, 'socket writes (system calls)'],
  [/^\(garbage collector\)$/, 'garbage collection'],
  [/^\(program\)$/, 'V8 and native code (program)'],
];

// Code that is not ours, by where it runs, for samples with no frame of ours on the stack.
const OUTSIDE = [
  [/^\(garbage collector\)$/, 'garbage collection'],
  [/^\((program|root)\)$/, 'V8 and native code (program)'],
  [/node_modules\/(@nestjs|express|router|body-parser|path-to-regexp|finalhandler|rxjs|iterare)\//, 'Nest and Express routing'],
  [/node_modules\/(pino|pino-std-serializers|sonic-boom|thread-stream)\//, 'logging (pino)'],
  [/node_modules\/@opentelemetry\//, 'tracing and metrics (OpenTelemetry)'],
  [/node_modules\/(ioredis|pg|typeorm)\//, 'database and Redis clients'],
  [/node:internal\/deps\/undici|node_modules\/undici\//, 'upstream HTTP client (undici)'],
  [/^node:(internal\/)?(_http|http|net|stream|streams|internal\/streams|internal\/http|internal\/stream_base)|^node:_http/, 'Node.js HTTP, sockets and streams'],
  [/^node:/, 'other Node.js internals'],
  [/node_modules\//, 'other libraries'],
];

/**
 * `{ calls, cpuMs, stages: [{ stage, ms, share }], functions: [{ name, where, ms }], inclusive }` for the
 * profile at `file`, `ms` per call. `stageOf(sourcePath)` names the stage of a file of ours
 * (`libs/…`, `apps/…`, as the source map names it) or undefined to use the file's folder.
 * `functions`: by their own time; `inclusive`: the suite's functions with all they called.
 */
export function profileByStage(file, { window, calls, stageOf, top = 25 }) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const where = sourceLocator();
  const ours = new Map(); // node id → our source path, or null
  const ourSource = (node) => {
    if (!ours.has(node.id)) {
      const place = where(node.callFrame);
      ours.set(node.id, place && /^(libs|apps|tools)\//.test(place.source) ? place.source : null);
    }
    return ours.get(node.id);
  };
  const byStage = new Map();
  const byFunction = new Map();
  const withCallees = new Map(); // our functions, with everything they called
  let time = profile.startTime;
  let busyUs = 0;
  for (let index = 0; index < profile.samples.length; index++) {
    const delta = profile.timeDeltas[index] ?? 0;
    time += delta;
    if (window && (time < window[0] || time > window[1])) continue;
    const leaf = nodes.get(profile.samples[index]);
    if (leaf.callFrame.functionName === '(idle)') continue;
    busyUs += delta;
    let stage = LEAVES.find(([pattern]) => !leaf.callFrame.url && pattern.test(leaf.callFrame.functionName))?.[1];
    for (let id = stage ? undefined : leaf.id; id !== undefined; id = parents.get(id)) {
      const source = ourSource(nodes.get(id));
      if (source) {
        stage = stageOf(source) ?? source.replace(/\/[^/]*$/, '/');
        break;
      }
    }
    stage ??= outsideStage(leaf.callFrame);
    const counted = new Set();
    for (let id = leaf.id; id !== undefined; id = parents.get(id)) {
      const node = nodes.get(id);
      if (!ourSource(node)) continue;
      const place = where(node.callFrame);
      const key = `${node.callFrame.functionName || '(anonymous)'} ${place.source}:${place.line}`;
      if (counted.has(key)) continue;
      counted.add(key);
      withCallees.set(key, (withCallees.get(key) ?? 0) + delta);
    }
    byStage.set(stage, (byStage.get(stage) ?? 0) + delta);
    const place = where(leaf.callFrame);
    const name = `${leaf.callFrame.functionName || '(anonymous)'}`;
    const at = place ? `${place.source}:${place.line}` : `${leaf.callFrame.url.replace(/^file:\/\/.*node_modules\//, '')}:${leaf.callFrame.lineNumber + 1}`;
    const key = `${name} ${at}`;
    byFunction.set(key, { name, where: at, us: (byFunction.get(key)?.us ?? 0) + delta });
  }
  const perCall = (us) => us / 1000 / calls;
  return {
    calls,
    cpuMs: perCall(busyUs),
    stages: [...byStage].sort((a, b) => b[1] - a[1]).map(([stage, us]) => ({ stage, ms: perCall(us), share: us / busyUs })),
    functions: [...byFunction.values()]
      .sort((a, b) => b.us - a.us)
      .slice(0, top)
      .map(({ name, where, us }) => ({ name, where, ms: perCall(us) })),
    inclusive: [...withCallees]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([key, us]) => ({ name: key.slice(0, key.indexOf(' ')), where: key.slice(key.indexOf(' ') + 1), ms: perCall(us) })),
  };
}

function outsideStage(callFrame) {
  const subject = callFrame.url || callFrame.functionName;
  for (const [pattern, stage] of OUTSIDE) if (pattern.test(subject) || pattern.test(callFrame.functionName)) return stage;
  return callFrame.url ? 'other libraries' : 'V8 and native code (builtins: JSON, strings, buffers)';
}

/** `(callFrame) → { source, line } | undefined`, through the source map of each bundle it meets. */
function sourceLocator() {
  const maps = new Map();
  const mapOf = (url) => {
    if (!maps.has(url)) {
      let map = null;
      if (url.startsWith('file://') && fs.existsSync(`${fileURLToPath(url)}.map`)) map = new SourceMap(JSON.parse(fs.readFileSync(`${fileURLToPath(url)}.map`, 'utf8')));
      maps.set(url, map);
    }
    return maps.get(url);
  };
  const cache = new Map();
  return (callFrame) => {
    const map = callFrame.url ? mapOf(callFrame.url) : null;
    if (!map) return undefined;
    const key = `${callFrame.url}:${callFrame.lineNumber}:${callFrame.columnNumber}`;
    if (!cache.has(key)) {
      const entry = map.findEntry(callFrame.lineNumber, callFrame.columnNumber);
      cache.set(key, entry?.originalSource ? { source: entry.originalSource.replace(/^webpack:\/\/\/(\.\/)?/, ''), line: entry.originalLine + 1 } : undefined);
    }
    return cache.get(key);
  };
}
