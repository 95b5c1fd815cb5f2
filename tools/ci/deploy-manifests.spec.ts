// There is no container engine or cluster here, so the image and manifests are checked statically
// for what operators rely on: probes on the real health paths, the listen ports the apps use,
// non-root containers, one control plane replica replaced by Recreate, no dev tools in the image.
import fs from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

const root = path.resolve(__dirname, '../..');
const k8s = path.join(root, 'deploy/k8s');

interface Container {
  name: string;
  ports: { name: string; containerPort: number }[];
  env: { name: string; value: string }[];
  readinessProbe: { httpGet: { path: string; port: string } };
  livenessProbe: { httpGet: { path: string; port: string } };
  securityContext: { allowPrivilegeEscalation: boolean; readOnlyRootFilesystem: boolean };
}

interface Manifest {
  kind: string;
  metadata: { name: string };
  spec: {
    replicas?: number;
    strategy?: { type: string };
    template: { spec: { securityContext: { runAsNonRoot: boolean }; containers: Container[] } };
    ports?: { port: number; targetPort: string }[];
  };
}

const APPS: Record<string, { port: number; listen: string }> = {
  'control-plane-api': { port: 8080, listen: 'CP_LISTEN_ADDR' },
  'sync-dispatcher': { port: 8081, listen: 'CP_DISPATCHER_LISTEN_ADDR' },
  'ai-gateway': { port: 4000, listen: 'AIGW_LISTEN_ADDR' },
  'mcp-gateway': { port: 4444, listen: 'MCPGW_LISTEN_ADDR' },
};

function manifests(file: string): Manifest[] {
  return parseAllDocuments(fs.readFileSync(path.join(k8s, file), 'utf8')).map((doc) => {
    expect(doc.errors).toEqual([]);
    return doc.toJS() as Manifest;
  });
}

describe('Kubernetes manifests', () => {
  it('list every workload in the kustomization', () => {
    const [kustomization] = parseAllDocuments(fs.readFileSync(path.join(k8s, 'kustomization.yaml'), 'utf8')).map((d) => d.toJS());
    expect([...kustomization.resources].sort()).toEqual(
      Object.keys(APPS)
        .map((app) => `${app}.yaml`)
        .sort(),
    );
  });

  it.each(Object.entries(APPS))('run %s non-root on its port with probes on /healthz and /readyz', (app, { port, listen }) => {
    const docs = manifests(`${app}.yaml`);
    const deployment = docs.find((d) => d.kind === 'Deployment')!;
    const service = docs.find((d) => d.kind === 'Service')!;
    const [container] = deployment.spec.template.spec.containers;
    expect(deployment.spec.template.spec.securityContext.runAsNonRoot).toBe(true);
    expect(container.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true });
    expect(container.ports).toEqual([{ name: 'http', containerPort: port }]);
    expect(container.env).toContainEqual({ name: listen, value: `0.0.0.0:${port}` });
    expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
    expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(service.spec.ports).toEqual([{ name: 'http', port, targetPort: 'http' }]);
  });

  it('keep the control plane to one replica, stopping the old one before the new one starts', () => {
    const deployment = manifests('control-plane-api.yaml').find((d) => d.kind === 'Deployment')!;
    expect(deployment.spec.replicas).toBe(1);
    expect(deployment.spec.strategy).toEqual({ type: 'Recreate' });
  });
});

describe('the service image', () => {
  const dockerfile = fs
    .readFileSync(path.join(root, 'docker/Dockerfile'), 'utf8')
    .split('\n')
    .filter((line) => !line.startsWith('#'))
    .join('\n');
  const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));

  it('runs as a non-root user with production packages only', () => {
    expect(runtime).toMatch(/^USER node$/m);
    expect(runtime).toContain('npm ci --omit=dev --omit=optional');
    expect(runtime).toMatch(/^CMD \["node", "dist\/main.js"\]$/m);
  });

  it('never copies the development tools', () => {
    expect(dockerfile).not.toMatch(/COPY .*tools/);
    expect(dockerfile).not.toContain('dev-idp');
  });
});
