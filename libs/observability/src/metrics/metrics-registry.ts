import { collectDefaultMetrics, Registry } from 'prom-client';

export interface MetricsOptions {
  /** Added as the `service` label on every series. */
  serviceName?: string;
  /** Prefix of the default process and Node.js metrics; default `arbor_`. */
  defaultMetricsPrefix?: string;
}

/**
 * This application's Prometheus registry (not prom-client's global one, so two apps in a test
 * run do not collide). Inject it to add metrics: `new Counter({ …, registers: [registry] })`.
 */
export class MetricsRegistry extends Registry {
  static create(options: MetricsOptions = {}): MetricsRegistry {
    const registry = new MetricsRegistry();
    if (options.serviceName) registry.setDefaultLabels({ service: options.serviceName });
    collectDefaultMetrics({ register: registry, prefix: options.defaultMetricsPrefix ?? 'arbor_' });
    return registry;
  }
}
