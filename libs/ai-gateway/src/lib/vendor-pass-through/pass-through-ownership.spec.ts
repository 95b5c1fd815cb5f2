// How the pass-through's ownership guard reads paths and answers: which paths name an object at
// all, and where an answer (whole or streamed in any slicing) names the object it made.
import { AnswerReader, segmentsOf } from './pass-through-ownership';

describe('pass-through ownership: paths and answers', () => {
  it('decodes id segments and attributes no object to a path with an empty, dot or slash-holding segment in any encoding', () => {
    expect(segmentsOf('/v1/files/file%2Dabc/content')).toEqual(['v1', 'files', 'file-abc', 'content']);
    for (const path of [
      '/v1/files/',
      '/v1//files',
      '/v1/files/a/..',
      '/v1/files/a/%2e%2E',
      '/v1/files/a/.%2e/b',
      '/v1/files/%2e',
      '/v1/files/a%2Fb',
      '/v1/files/a%5Cb',
      '/v1/files/a\\b',
      '/v1/files/%E0%A4%A',
      'v1/files',
    ]) {
      expect({ path, segments: segmentsOf(path) }).toEqual({ path, segments: undefined });
    }
  });

  it("finds the id a JSON answer names, and a stream's first event that names one however its bytes are sliced", () => {
    const json = new AnswerReader(['id']);
    json.push(Buffer.from('{"object":"response","output":[{"id":"msg_1"}],'));
    json.push(Buffer.from('"id":"resp_1"}'));
    expect(json.madeId()).toBe('resp_1');

    const stream = 'event: thread.created\ndata: {"id":"thread_1","object":"thread"}\n\nevent: thread.run.created\ndata: {"id":"run_1","thread_id":"thread_1"}\n\n';
    for (const size of [1, 3, 7, stream.length]) {
      const reader = new AnswerReader(['thread_id']);
      for (let at = 0; at < stream.length; at += size) reader.push(Buffer.from(stream.slice(at, at + size)));
      expect({ size, id: reader.madeId() }).toEqual({ size, id: 'thread_1' });
    }
    const responses = new AnswerReader(['id', 'response.id']);
    responses.push(Buffer.from('event: response.created\r\ndata: {"type":"response.created","response":{"id":"resp_2"}}\r\n\r\n'));
    expect(responses.madeId()).toBe('resp_2');
  });
});
