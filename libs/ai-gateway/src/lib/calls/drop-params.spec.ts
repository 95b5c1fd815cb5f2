import { ProviderError } from '@arbor/provider-adapters';
import { validateHeaderValue } from 'node:http';
import { applyDropParams, checkGatewayParams, droppedParamsHeader } from './drop-params';

const SUPPORTED = new Set(['model', 'messages', 'temperature']);

describe('applyDropParams', () => {
  it('refuses an unsupported parameter with 400 naming it when drop_params is off', () => {
    const call = () => applyDropParams({ model: 'a', messages: [], top_k: 1 }, SUPPORTED, 'openai', false);
    expect(call).toThrow(ProviderError);
    try {
      call();
    } catch (error) {
      expect((error as ProviderError).toBody().error).toMatchObject({ type: 'invalid_request_error', param: 'top_k', code: 'unsupported_parameter' });
      expect((error as ProviderError).status).toBe(400);
    }
  });

  it('drops it when drop_params is on globally or in the request, and removes the gateway fields', () => {
    expect(applyDropParams({ model: 'a', messages: [], top_k: 1 }, SUPPORTED, 'openai', true)).toEqual({ model: 'a', messages: [] });
    expect(applyDropParams({ model: 'a', messages: [], top_k: 1, drop_params: true }, SUPPORTED, 'openai', false)).toEqual({ model: 'a', messages: [] });
  });

  it('lets the request turn a global drop_params off', () => {
    expect(() => applyDropParams({ model: 'a', top_k: 1, drop_params: false }, SUPPORTED, 'openai', true)).toThrow(ProviderError);
  });

  it('sends every parameter on for an operation that forwards them (pass-through providers), gateway fields removed', () => {
    const body = { model: 'a', messages: [], prompt_cache_retention: '24h', drop_params: false, additional_drop_params: ['seed'], seed: 1 };
    expect(applyDropParams(body, SUPPORTED, 'openai', false, 'forwarded')).toEqual({ model: 'a', messages: [], prompt_cache_retention: '24h' });
  });

  it('removes the names in additional_drop_params, supported or not', () => {
    expect(applyDropParams({ model: 'a', temperature: 1, top_k: 2, additional_drop_params: ['temperature', 'top_k'] }, SUPPORTED, 'openai', false)).toEqual({ model: 'a' });
  });

  it('checks the shapes of the gateway fields', () => {
    expect(() => checkGatewayParams({ drop_params: 'yes' })).toThrow(ProviderError);
    expect(() => checkGatewayParams({ additional_drop_params: 'temperature' })).toThrow(ProviderError);
    expect(() => checkGatewayParams({ drop_params: true, additional_drop_params: ['x'] })).not.toThrow();
  });
});

describe('the x-arbor-dropped-params header', () => {
  it('names each dropped field once, and any name a client sends makes a valid header value', () => {
    expect(droppedParamsHeader(['temperature', 'tools.0 (web_search)', 'temperature'])).toBe('temperature, tools.0 (web_search)');
    // A lone surrogate, a line break, a character beyond Latin-1: written as \uXXXX, so the answer still goes out.
    const hostile = droppedParamsHeader(['\ud800', 'a\r\nset-cookie: x', '中文']);
    expect(hostile).toBe('\\ud800, a\\u000d\\u000aset-cookie: x, \\u4e2d\\u6587');
    expect(() => validateHeaderValue('x-arbor-dropped-params', hostile)).not.toThrow();
  });

  it('stays short when a body carries thousands of unknown fields', () => {
    const value = droppedParamsHeader(Array.from({ length: 5000 }, (_, index) => `field_${index}`));
    expect(value.length).toBeLessThanOrEqual(512);
    expect(value.endsWith('...')).toBe(true);
  });
});
